package hooks

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// StartWarm starts "<self> hook warm" in the background with the payload on
// its stdin, and does not wait for it.
//
// The payload is written to a file whose descriptor becomes the child's
// stdin before StartWarm returns: a hook exits right after, and a pipe fed
// by a goroutine of the exiting hook would reach the child empty.
func StartWarm(self string, payload []byte) error {
	in, err := payloadFile(payload)
	if err != nil {
		return err
	}
	defer in.Close() // the child holds its own copy of the descriptor
	cmd := exec.Command(self, "hook", "warm")
	cmd.Stdin = in // an *os.File is handed over as is, with no copying goroutine
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the background warm-up: %w", err)
	}
	return cmd.Process.Release()
}

// payloadFile is a temporary file holding payload, positioned at its start.
// The name is removed where the system allows it while the file is open,
// so nothing is left behind.
func payloadFile(payload []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "git-mem-warm-*")
	if err != nil {
		return nil, fmt.Errorf("writing the warm-up payload: %w", err)
	}
	unlinkOpen(f)
	if _, err := f.Write(payload); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the warm-up payload: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the warm-up payload: %w", err)
	}
	return f, nil
}
