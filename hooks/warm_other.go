//go:build !unix

package hooks

import (
	"bytes"
	"os/exec"
)

// StartWarm starts "<self> hook warm" with the payload on stdin, and does not
// wait for it.
func StartWarm(self string, payload []byte) error {
	cmd := exec.Command(self, "hook", "warm")
	cmd.Stdin = bytes.NewReader(payload)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
