//go:build unix

package cmd

import (
	"os/exec"
	"syscall"
)

// detachProcess starts cmd in a session of its own: a background refresh
// outlives the command, and the terminal's signals do not reach it.
func detachProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
