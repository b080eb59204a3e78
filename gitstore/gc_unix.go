//go:build unix

package gitstore

import (
	"os/exec"
	"syscall"
)

// detach starts the child in a session of its own: it outlives the command
// that started it, and a terminal's signals do not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
