//go:build unix

package cmd_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestImportHostileFiles: what a cloned repository can hold (symlinks out of
// it, to devices, FIFOs) is skipped with the reason, never read and never
// waited on; the good file beside it is still imported, in one commit.
func TestImportHostileFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "notes.md")
	require.NoError(t, os.WriteFile(secret, []byte("- the machine's own private note stays on the machine\n"), 0o644))
	cases := []struct {
		name  string
		plant func(t *testing.T, path string)
		skip  string // the reason on stderr; "" when the file is imported
	}{
		{"symlink out of the repository", func(t *testing.T, p string) { require.NoError(t, os.Symlink(secret, p)) }, "a symlink to a file outside the repository"},
		{"symlink through a folder out of the repository", func(t *testing.T, p string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(filepath.Dir(p), "linked")))
			require.NoError(t, os.Symlink(filepath.Join("linked", "notes.md"), p))
		}, "a symlink to a file outside the repository"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) }, "a symlink to a file outside the repository"},
		{"FIFO", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }, "not a regular file (a FIFO)"},
		{"symlink inside the repository", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(p), "AGENTS.md"), []byte("- the agents file is read through its link\n"), 0o644))
			require.NoError(t, os.Symlink("AGENTS.md", p))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			good := filepath.Join(sb.repo, "good.md")
			require.NoError(t, os.WriteFile(good, []byte("- the good file beside it is imported\n"), 0o644))
			hostile := filepath.Join(sb.repo, "hostile.md")
			tc.plant(t, hostile)
			for _, dry := range []bool{true, false} {
				args := []string{"import", "hostile.md", "good.md"}
				if dry {
					args = []string{"import", "--dry-run", "hostile.md", "good.md"}
				}
				out, errOut, code := sb.memBounded(20*time.Second, sb.repo, args...)
				require.Equal(t, 0, code, errOut)
				if tc.skip != "" {
					require.Contains(t, errOut, "skipped hostile.md: invalid input: "+tc.skip)
					require.NotContains(t, out, "private note")
				} else {
					require.Empty(t, errOut)
				}
			}
			log := sb.git("log", "-p", "refs/memory/main")
			require.Contains(t, log, "the good file beside it is imported")
			require.NotContains(t, log, "private note", "nothing from outside the repository is stored")
			require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))
			if tc.skip == "" {
				require.Contains(t, log, "the agents file is read through its link")
			}
		})
	}
}

// TestImportInterrupted: SIGINT or SIGTERM stops an import, also one given a
// FIFO (which once blocked it in open, deaf to signals): it exits promptly
// having written one whole commit or none, and leaves no lock behind.
func TestImportInterrupted(t *testing.T) {
	var notes strings.Builder
	notes.WriteString("# Notes\n\n")
	words := strings.Fields("deploy build test cache token staging release branch review schema migration queue worker index")
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&notes, "- %s %s %s %s %s %s %d\n", words[i%14], words[i*7%14], words[i*3%14], words[i*5%14], words[i*11%14], words[i/14%14], i)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			sb := newSandbox(t)
			require.NoError(t, syscall.Mkfifo(filepath.Join(sb.repo, "pipe.md"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte(notes.String()), 0o644))
			c := exec.Command(binary, "import", "pipe.md", "notes.md")
			c.Dir, c.Env = sb.repo, sb.env()
			var errb bytes.Buffer
			c.Stderr = &errb
			require.NoError(t, c.Start())
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, c.Process.Signal(sig))
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = c.Process.Kill()
				<-done
				t.Fatalf("git mem import did not stop on %v: %s", sig, errb.String())
			}
			commits := "0"
			if refAt(t, sb.repo, "refs/memory/main") != "" {
				commits = strings.TrimSpace(sb.git("rev-list", "--count", "refs/memory/main"))
			}
			require.Contains(t, []string{"0", "1"}, commits, "one commit or none")
			if c.ProcessState.ExitCode() != 0 {
				require.Contains(t, errb.String(), "import interrupted")
			}
			locks, err := filepath.Glob(filepath.Join(sb.repo, ".git", "*.lock"))
			require.NoError(t, err)
			refLocks, err := filepath.Glob(filepath.Join(sb.repo, ".git", "refs", "memory", "*.lock"))
			require.NoError(t, err)
			require.Empty(t, append(locks, refLocks...), "no lock left behind")
			sb.git("fsck", "--no-dangling")
		})
	}
}
