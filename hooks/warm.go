package hooks

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Background is Request.Later for a hook run by this executable: it starts
// "<this executable> hook <args...>" with the payload on its stdin, and does
// not wait for it. It fails silently: a hook has nobody to tell.
func Background(args []string, payload []byte) {
	if exe, err := os.Executable(); err == nil {
		_ = StartLater(exe, args, payload)
	}
}

// StartLater starts "<self> hook <args...>" in the background, in a session
// of its own, with the payload on its stdin, and does not wait for it.
//
// The payload is written to a file whose descriptor becomes the child's
// stdin before StartLater returns: a hook exits right after, and a pipe fed
// by a goroutine of the exiting hook would reach the child empty.
func StartLater(self string, args []string, payload []byte) error {
	in, err := payloadFile(payload)
	if err != nil {
		return err
	}
	defer in.Close() // the child holds its own copy of the descriptor
	cmd := exec.Command(self, append([]string{"hook"}, args...)...)
	cmd.Stdin = in // an *os.File is handed over as is, with no copying goroutine
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting git-mem hook %s in the background: %w", strings.Join(args, " "), err)
	}
	return cmd.Process.Release()
}

// payloadFile is a temporary file holding payload, positioned at its start.
// The name is removed where the system allows it while the file is open,
// so nothing is left behind.
func payloadFile(payload []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "git-mem-hook-*")
	if err != nil {
		return nil, fmt.Errorf("writing the payload of a background hook: %w", err)
	}
	unlinkOpen(f)
	if _, err := f.Write(payload); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the payload of a background hook: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the payload of a background hook: %w", err)
	}
	return f, nil
}
