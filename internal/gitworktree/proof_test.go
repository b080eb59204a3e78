package gitworktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/git-mem/git-mem/internal/gitobj"
)

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := c.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// repoOf is the proof's view of the repository at dir, HEAD's tree as git
// names it.
func repoOf(t *testing.T, dir string) Repo {
	gitDir := filepath.Join(dir, ".git")
	return Repo{
		WorkTree: dir, GitDir: gitDir, CommonDir: gitDir, Config: gitconfig.Load(gitDir),
		HeadTree: func() (gitobj.Hash, bool) {
			out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "HEAD^{tree}").Output()
			if err != nil {
				return gitobj.Hash{}, false
			}
			return gitobj.ParseHash(strings.TrimSpace(string(out)))
		},
	}
}

// TestIndexAsGitReadsIt: every entry of an index git wrote, in versions 2
// to 4, is read with the name, mode and size git ls-files --debug shows,
// in git's order, and the cached root tree is HEAD's tree.
func TestIndexAsGitReadsIt(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, version := range []string{"2", "3", "4"} {
		t.Run("version "+version, func(t *testing.T) {
			dir := t.TempDir()
			runGit(t, dir, "init", "-q", "-b", "main")
			runGit(t, dir, "config", "user.name", "Test User")
			runGit(t, dir, "config", "user.email", "test@example.com")
			for _, f := range []string{"README.md", "src/main.go", "src/lib/store.go", "src/lib/store_test.go", "docs/a b.md"} {
				p := filepath.Join(dir, filepath.FromSlash(f))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte("content of "+f+"\n"), 0o644))
			}
			runGit(t, dir, "add", "-A")
			runGit(t, dir, "commit", "-qm", "base")
			runGit(t, dir, "update-index", "--index-version", version)
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			require.NoError(t, err)
			idx, err := parseIndex(data)
			require.NoError(t, err)

			var want []string
			for _, line := range strings.Split(strings.TrimSpace(runGit(t, dir, "ls-files", "-s")), "\n") {
				meta, name, _ := strings.Cut(line, "\t")
				want = append(want, strings.Fields(meta)[0]+" "+name)
			}
			var got []string
			for _, e := range idx.entries {
				got = append(got, strconv.FormatUint(uint64(e.mode), 8)+" "+e.name)
				st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(e.name)))
				require.NoError(t, err)
				require.Equal(t, uint32(st.Size()), e.size, e.name)
			}
			require.Equal(t, want, got)
			tree, ok := repoOf(t, dir).HeadTree()
			require.True(t, ok)
			require.True(t, idx.rootValid)
			require.Equal(t, len(idx.entries), idx.rootCount)
			require.Equal(t, tree, idx.rootTree)
		})
	}
}

// TestProveClean: a committed worktree is proven clean once its files are
// older than the index; a new untracked file is not, as git status lists
// it.
func TestProveClean(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the proof reads stat data on Linux only; elsewhere git status decides")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "config", "user.name", "Test User")
	runGit(t, dir, "config", "user.email", "test@example.com")
	p := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(p, []byte("a\n"), 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "base")
	require.Empty(t, runGit(t, dir, "status", "--porcelain"))
	require.NoError(t, ProveClean(t.Context(), repoOf(t, dir)))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644))
	require.NotEmpty(t, runGit(t, dir, "status", "--porcelain"))
	require.ErrorIs(t, ProveClean(t.Context(), repoOf(t, dir)), ErrUnproven)
}
