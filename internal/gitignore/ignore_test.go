package gitignore

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/stretchr/testify/require"
)

// isolateGitEnv gives git and the reader a home of their own, without the
// system's or the user's config files.
func isolateGitEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	return home
}

func gitCmd(dir string, args ...string) *exec.Cmd {
	return exec.Command("git", append([]string{"-C", dir}, args...)...)
}

// gitInit makes a repository with git init.
func gitInit(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := gitCmd(dir, "init", "-q", "-b", "main").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir
}

// ignoreTree is the worktree the ignore rules are checked on: files, and
// the directories that hold them.
var ignoreTree = []string{
	"a.txt", "b.log", "ab", "Ab", ".hidden", "7.dat", "sp ace", "tail ",
	"x/a.txt", "x/y/b.log", "x/y/z/ab", "x/.hidden/f",
	"a/b", "a/x.log", "a/b.c/d", "a/deep/b/c/e.txt",
	"foo/bar/baz.txt", "foo/a/bar/q", "[weird]/f", "log/keep.log", "ba/ab/ab",
}

// ignoreTreePaths lists every file and directory of ignoreTree, and which
// are directories.
func ignoreTreePaths() (paths []string, dirs map[string]bool) {
	dirs = map[string]bool{}
	seen := map[string]bool{}
	for _, f := range ignoreTree {
		for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
			if !seen[d] {
				seen[d], dirs[d] = true, true
				paths = append(paths, d)
			}
		}
		seen[f] = true
		paths = append(paths, f)
	}
	sort.Strings(paths)
	return paths, dirs
}

// ignoredAsGit is whether git status would hide path: it or a directory
// above it is ignored (the walk never enters an ignored directory).
func ignoredAsGit(ig *Rules, path string, isDir bool) bool {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if ig.Ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return ig.Ignored(path, isDir)
}

// checkIgnoreRules compares, on every path of ignoreTree, the ignore rules
// read from the given files (worktree-relative name to content) with what
// git check-ignore says; it reports false when this reader declined them.
func checkIgnoreRules(t *testing.T, files map[string]string) bool {
	t.Helper()
	dir := gitInit(t)
	for _, f := range ignoreTree {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	paths, dirs := ignoreTreePaths()
	c := gitCmd(dir, "check-ignore", "--no-index", "--stdin", "-z")
	c.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := c.Output()
	if ee, ok := err.(interface{ ExitCode() int }); ok && ee.ExitCode() == 1 {
		err = nil // nothing ignored
	}
	require.NoError(t, err)
	want := map[string]bool{}
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		want[p] = true
	}

	commonDir := filepath.Join(dir, ".git")
	ig, err := New(dir, commonDir, gitconfig.Load(commonDir).Get("core", "", "excludesFile"))
	if err != nil {
		require.ErrorIs(t, err, ErrUnsupported)
		return false
	}
	for _, p := range paths {
		if dirs[p] {
			if err := ig.Enter(p); err != nil {
				require.ErrorIs(t, err, ErrUnsupported)
				return false
			}
		}
	}
	if err := ig.Enter(""); err != nil {
		require.ErrorIs(t, err, ErrUnsupported)
		return false
	}
	for _, p := range paths {
		require.Equal(t, want[p], ignoredAsGit(ig, p, dirs[p]), "%s (directory: %v) with %q", p, dirs[p], files)
	}
	return true
}

func TestIgnoreRulesAsGit(t *testing.T) {
	home := isolateGitEnv(t)
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"basename", map[string]string{".gitignore": "ab\n"}},
		{"extension", map[string]string{".gitignore": "*.log\n"}},
		{"negation", map[string]string{".gitignore": "*.log\n!keep.log\n"}},
		{"negation under an ignored directory", map[string]string{".gitignore": "log/\n!log/keep.log\n"}},
		{"directories only", map[string]string{".gitignore": "b/\nab/\n"}},
		{"anchored", map[string]string{".gitignore": "/ab\n/x/y\n"}},
		{"slash inside", map[string]string{".gitignore": "x/*.txt\na/*/d\n"}},
		{"leading double star", map[string]string{".gitignore": "**/ab\n**/bar/q\n"}},
		{"trailing double star", map[string]string{".gitignore": "foo/**\n"}},
		{"inner double star", map[string]string{".gitignore": "a/**/e.txt\nfoo/**/q\n"}},
		{"double star in a name", map[string]string{".gitignore": "a**e.txt\nx/**b.log\n"}},
		{"wildcards do not match a slash", map[string]string{".gitignore": "a?b.c/d\nx[/]y\na*deep/b/c\n"}},
		{"a trailing star stops at a slash", map[string]string{".gitignore": "x/*\n!x/y/\n"}},
		{"stars within double stars", map[string]string{".gitignore": "**/b*/e.txt\na/**/d*/b/c/e.txt\n**/x*/b.log\nfoo/**/b*/q\n**/y*z/ab\n"}},
		{"a double star tries every directory", map[string]string{".gitignore": "**/a*b\n!ba/ab/\n"}},
		{"question mark", map[string]string{".gitignore": "?b\nx/?.txt\n"}},
		{"brackets", map[string]string{".gitignore": "[ab].txt\n[!a]b\n[^x]/a.txt\n[]w]*\n"}},
		{"ranges and classes", map[string]string{".gitignore": "[0-9].dat\n[a-c-z]oo/\n[[:upper:]]b\n[[:alpha:][:digit:]]*.log\n"}},
		{"escapes", map[string]string{".gitignore": "\\[weird\\]\nsp\\ ace\ntail\\ \n\\#x\n\\!y\n"}},
		{"trailing spaces", map[string]string{".gitignore": "ab   \na.txt \\ \n"}},
		{"comments and blank lines", map[string]string{".gitignore": "# ab\n\n   \n#*.log\n"}},
		{"hidden files", map[string]string{".gitignore": ".*\n!.gitignore\n"}},
		{"nested file", map[string]string{".gitignore": "*.log\n", "x/.gitignore": "!b.log\n/a.txt\n", "a/.gitignore": "deep/\n"}},
		{"nested anchored", map[string]string{"foo/.gitignore": "/bar\na/bar/\n"}},
		{"info/exclude and the user file", map[string]string{".git/info/exclude": "ab\n", "home/.config/git/ignore": "*.txt\n!x/a.txt\n"}},
		{"info/exclude before the user file", map[string]string{".git/info/exclude": "!a.txt\n", "home/.config/git/ignore": "*.txt\n"}},
		{"a byte order mark", map[string]string{".gitignore": "\xef\xbb\xbfab\n"}},
		{"no final newline", map[string]string{".gitignore": "*.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for name, content := range tt.files {
				if rest, ok := strings.CutPrefix(name, "home/"); ok {
					p := filepath.Join(home, rest)
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
					t.Cleanup(func() { os.Remove(p) })
					continue
				}
				files[name] = content
			}
			require.True(t, checkIgnoreRules(t, files), "read as git reads them")
		})
	}
}

// TestIgnoreRulesAsGitRandom compares random pattern files with git.
func TestIgnoreRulesAsGitRandom(t *testing.T) {
	isolateGitEnv(t)
	pieces := []string{"a", "b", "x", "y", "ab", "*", "**", "?", "[ab]", "[!a]", "[a-c]", "[^x]",
		"[[:alpha:]]", "[[:digit:]]", ".log", ".txt", "/", "/", "\\*", "\\[", ".", "[]]", "e", "d", "bar"}
	rng := rand.New(rand.NewPCG(7, 11))
	line := func() string {
		var b strings.Builder
		if rng.IntN(5) == 0 {
			b.WriteString("!")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		for n := 1 + rng.IntN(4); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		return b.String()
	}
	file := func() string {
		var lines []string
		for n := 1 + rng.IntN(4); n > 0; n-- {
			lines = append(lines, line())
		}
		return strings.Join(lines, "\n") + "\n"
	}
	runs := 150
	if testing.Short() {
		runs = 30
	}
	for i := 0; i < runs; i++ {
		files := map[string]string{".gitignore": file()}
		if rng.IntN(2) == 0 {
			files["a/.gitignore"] = file()
		}
		if rng.IntN(3) == 0 {
			files["x/y/.gitignore"] = file()
		}
		checkIgnoreRules(t, files)
	}
}

// FuzzIgnoreRulesAsGit: any .gitignore is read as git check-ignore reads
// it, or refused as one the proof leaves to git status.
func FuzzIgnoreRulesAsGit(f *testing.F) {
	for _, seed := range []string{"*.log\n!keep.log\n", "a/**/e.txt\n", "[[:alpha:]]b\n", "\\[weird\\]\n", "x/*\n!x/y/\n", "**/a*b\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, gitignore string) {
		isolateGitEnv(t)
		checkIgnoreRules(t, map[string]string{".gitignore": gitignore})
	})
}
