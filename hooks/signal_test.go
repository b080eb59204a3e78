package hooks_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// signalAndExit is the test binary acting as a hook's main: it takes a
// lock when GIT_MEM_TEST_SIGNALS_LOCK is set, then sends itself SIGTERM.
// Exit 0: the signal cancelled the hook's context and the lock was
// released; killed by the signal: nothing caught it.
func signalAndExit(dir string) {
	ctx, stop := hooks.SignalContext()
	defer stop()
	if os.Getenv("GIT_MEM_TEST_SIGNALS_LOCK") != "" {
		f, release, err := lockfile.Create(filepath.Join(dir, "ref.lock"))
		if err != nil {
			os.Exit(3)
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
			release()
		}()
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		os.Exit(4)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		os.Exit(5)
	}
}

// TestSignalContext: a hook that holds a lock is cancelled by SIGTERM and
// releases its lock before it exits; one that never took a lock does not
// catch signals (so that catching them costs it nothing) and ends at once.
func TestSignalContext(t *testing.T) {
	for _, lock := range []bool{true, false} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GIT_MEM_TEST_SIGNALS="+dir)
		if lock {
			cmd.Env = append(cmd.Env, "GIT_MEM_TEST_SIGNALS_LOCK=1")
		}
		err := cmd.Run()
		if lock {
			require.NoError(t, err, "the signal cancelled the context")
			_, err := os.Stat(filepath.Join(dir, "ref.lock"))
			require.True(t, errors.Is(err, os.ErrNotExist), "the lock was released")
			continue
		}
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		status, ok := exit.Sys().(syscall.WaitStatus)
		require.True(t, ok)
		require.True(t, status.Signaled(), "killed by the signal: %v", err)
		require.Equal(t, syscall.SIGTERM, status.Signal())
	}
}
