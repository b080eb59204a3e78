package gitrefs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// gitOut is git's output in dir, trimmed, or its error.
func gitOut(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// gitInit is a new repository made by git.
func gitInit(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "config", "user.name", "Test User")
	runGit(t, dir, "config", "user.email", "test@example.com")
	return dir
}

// TestLiveLockIsNotBroken: a lock held by a live process (this one) or taken
// by git without a holder line is waited for, not broken.
func TestLiveLockIsNotBroken(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    bool
	}{
		{"this process", string(ownerLine()), false},
		{"git's own lock", "", false},
		{"a value being written", "0123456789012345678901234567890123456789\n", false},
		{"another machine", "git-mem pid 999999999 on some-other-host\n", false},
		{"a process that is gone", "git-mem pid " + deadPid(t) + " on " + hostname(t) + "\n", true},
		{"garbage", "git-mem pid x on " + hostname(t) + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "main.lock")
			require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o644))
			require.Equal(t, tt.want, LockAbandoned(p))
		})
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	require.NoError(t, err)
	return h
}

// deadPid is the id of a process that ran and exited.
func deadPid(t *testing.T) string {
	cmd := exec.Command("git", "--version")
	require.NoError(t, cmd.Run())
	return strconv.Itoa(cmd.Process.Pid)
}

// FuzzLooseRefAsGit: whatever a loose memory ref file holds, the reader
// reads the commit git rev-parse reads from it, and an error where git
// finds the ref broken.
func FuzzLooseRefAsGit(f *testing.F) {
	dir := gitInit(f)
	runGit(f, dir, "commit", "-q", "--allow-empty", "-m", "one")
	head := strings.TrimSpace(runGit(f, dir, "rev-parse", "HEAD"))
	for _, seed := range []string{head + "\n", head, head + "  \n", strings.ToUpper(head) + "\n", head + " junk\n", "ref: refs/heads/main\n", "ref:refs/heads/main", "ref: refs/memory/none\n", "garbage\n", "\n" + head, head[:39] + "\n"} {
		f.Add(seed)
	}
	path := filepath.Join(dir, ".git", "refs", "memory", "main")
	require.NoError(f, os.MkdirAll(filepath.Dir(path), 0o755))
	// the last content tried is no ref git must keep reading
	f.Cleanup(func() { os.Remove(path) })
	f.Fuzz(func(t *testing.T, content string) {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		want, gitErr := gitOut(dir, "rev-parse", "-q", "--verify", "refs/memory/main")
		got, err := OpenDisk(filepath.Join(dir, ".git")).Read("refs/memory/main")
		if gitErr != nil {
			require.True(t, err != nil || got.IsZero(), "git finds %q broken or missing; git-mem read %s", content, got)
			return
		}
		require.NoError(t, err, "git reads %q as %s", content, want)
		require.Equal(t, want, got.String(), "%q", content)
	})
}
