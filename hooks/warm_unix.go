//go:build unix

package hooks

import (
	"bytes"
	"os/exec"
	"syscall"
)

// StartWarm starts "<self> hook warm" detached from the hook's session, with
// the payload on stdin, and does not wait for it.
func StartWarm(self string, payload []byte) error {
	cmd := exec.Command(self, "hook", "warm")
	cmd.Stdin = bytes.NewReader(payload)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
