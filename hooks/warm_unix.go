//go:build unix

package hooks

import (
	"os"
	"os/exec"
	"syscall"
)

// detach starts the child in a session of its own, so the agent's signals to
// the hook's process group do not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// unlinkOpen removes an open file's name; the open descriptor keeps its data.
func unlinkOpen(f *os.File) { os.Remove(f.Name()) }
