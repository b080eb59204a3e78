package gitrefs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/stretchr/testify/require"
)

// gitOut is git's output in dir, trimmed, or its error.
func gitOut(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// FuzzLooseRefAsGit: whatever a loose memory ref file holds, the reader
// reads the commit git rev-parse reads from it, and an error where git
// finds the ref broken.
func FuzzLooseRefAsGit(f *testing.F) {
	dir := gittest.Init(f)
	gittest.Run(f, dir, "commit", "-q", "--allow-empty", "-m", "one")
	head := strings.TrimSpace(gittest.Run(f, dir, "rev-parse", "HEAD"))
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

// TestValidRefNameAsGit: the names a symbolic ref may point at are the ones
// git check-ref-format accepts.
func TestValidRefNameAsGit(t *testing.T) {
	for _, name := range []string{
		"refs/heads/main", "refs/memory/main", "refs/heads/feature/x-1", "refs/heads/a.b",
		"refs//heads/main", "refs/heads/main/", "refs/heads/.hidden", "refs/heads/a..b",
		"refs/heads/x.lock", "refs/heads/x.", "refs/heads/a@{b", "refs/heads/a b",
		"refs/heads/a~b", "refs/heads/a^b", "refs/heads/a:b", "refs/heads/a?b", "refs/heads/a*b",
		"refs/heads/a[b", "refs/heads/a\\b", "refs/heads/a\x7fb", "refs/heads/a\tb", "refs/heads/@",
		"refs/heads/a.lock/b", "refs/heads/a/.b",
	} {
		err := exec.Command("git", "check-ref-format", name).Run()
		require.Equal(t, err == nil, validRefName(name), "%q", name)
	}
}
