package gitstore

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gittest"
)

// isolateGitEnv keeps the test's git and the proof away from the user's
// configuration and ignore files.
func isolateGitEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	return home
}

// writeOld writes a worktree file dated an hour back, so that a commit
// made next does not leave it racily clean.
func writeOld(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
}

// cleanRepo is a committed repository whose files predate its index.
func cleanRepo(t *testing.T) string {
	t.Helper()
	dir := gitInit(t)
	writeOld(t, dir, "README.md", "# project\n")
	writeOld(t, dir, "src/main.go", "package main\n")
	writeOld(t, dir, "src/lib/store.go", "package lib\n")
	writeOld(t, dir, "docs/guide.md", "guide\n")
	writeOld(t, dir, "run.sh", "#!/bin/sh\n")
	require.NoError(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	writeOld(t, dir, ".gitignore", "build/\n*.log\n!keep.log\n/top.tmp\n[[:digit:]]*.dat\ncache/**/*.bin\n")
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "base")
	return dir
}

func TestWorktreeProof(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the proof reads stat data on Linux only; elsewhere git status decides")
	}
	tests := []struct {
		name   string
		change func(t *testing.T, dir string) string // returns the worktree to check
		proven bool                                  // the proof finds it clean
		dirty  bool                                  // git status lists something
	}{
		{name: "committed", proven: true},
		{name: "untracked file", change: create("new.txt"), dirty: true},
		{name: "ignored file", change: create("debug.log"), proven: true},
		{name: "re-included file", change: create("keep.log"), dirty: true},
		{name: "ignored directory", change: create("build/out/a.o"), proven: true},
		{name: "anchored pattern at the top", change: create("top.tmp"), proven: true},
		{name: "anchored pattern below the top", change: create("src/top.tmp"), dirty: true},
		{name: "character class", change: create("7days.dat"), proven: true},
		{name: "character class not matched", change: create("days7.dat"), dirty: true},
		{name: "double star", change: create("cache/a/b/c.bin"), proven: true},
		{name: "double star not matched", change: create("cache/a/b/c.txt"), dirty: true},
		{name: "empty untracked directories", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty", "sub"), 0o755))
			return dir
		}, proven: true},
		{name: "untracked directory of ignored files", change: create("tmp/a.log", "tmp/deep/b.log"), proven: true},
		{name: "nested ignore file", change: nestedIgnore("*.gen\n", "src/lib/a.gen"), proven: true},
		{name: "nested anchored pattern", change: nestedIgnore("/lib/*.gen\n", "src/lib/a.gen"), proven: true},
		{name: "nested anchored pattern, deeper", change: nestedIgnore("/lib/*.gen\n", "src/more/lib/a.gen"), dirty: true},
		{name: "nested negation wins over the top", change: nestedIgnore("!trace.log\n", "src/trace.log"), dirty: true},
		{name: "info/exclude", change: func(t *testing.T, dir string) string {
			writeOld(t, dir, ".git/info/exclude", "secret.txt\n")
			return create("secret.txt")(t, dir)
		}, proven: true},
		{name: "user ignore file", change: func(t *testing.T, dir string) string {
			writeOld(t, os.Getenv("XDG_CONFIG_HOME"), "git/ignore", "*.swp\n")
			return create("src/.main.go.swp")(t, dir)
		}, proven: true},
		{name: "core.excludesFile under the home directory", change: func(t *testing.T, dir string) string {
			writeOld(t, os.Getenv("HOME"), "ignore-list", "*.bak\n")
			gittest.Run(t, dir, "config", "core.excludesFile", "~/ignore-list")
			return create("docs/guide.md.bak")(t, dir)
		}, proven: true},
		{name: "core.excludesFile that does not ignore it", change: func(t *testing.T, dir string) string {
			writeOld(t, os.Getenv("HOME"), "ignore-list", "*.orig\n")
			gittest.Run(t, dir, "config", "core.excludesFile", "~/ignore-list")
			return create("docs/guide.md.bak")(t, dir)
		}, dirty: true},
		{name: "same size, new content", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "src/main.go"), []byte("package mian\n"), 0o644))
			return dir
		}, dirty: true},
		{name: "touched, same content", change: func(t *testing.T, dir string) string {
			now := time.Now()
			require.NoError(t, os.Chtimes(filepath.Join(dir, "docs/guide.md"), now, now))
			return dir
		}},
		{name: "deleted", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.Remove(filepath.Join(dir, "docs/guide.md")))
			return dir
		}, dirty: true},
		{name: "staged", change: func(t *testing.T, dir string) string {
			writeOld(t, dir, "docs/guide.md", "a longer guide\n")
			gittest.Run(t, dir, "add", "docs/guide.md")
			return dir
		}, dirty: true},
		{name: "staged, then the worktree put back", change: func(t *testing.T, dir string) string {
			writeOld(t, dir, "docs/guide.md", "a longer guide\n")
			gittest.Run(t, dir, "add", "docs/guide.md")
			writeOld(t, dir, "docs/guide.md", "guide\n")
			return dir
		}, dirty: true},
		{name: "intent to add", change: func(t *testing.T, dir string) string {
			create("new.txt")(t, dir)
			gittest.Run(t, dir, "add", "-N", "new.txt")
			return dir
		}, dirty: true},
		{name: "executable bit", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.Chmod(filepath.Join(dir, "README.md"), 0o755))
			return dir
		}, dirty: true},
		{name: "symbolic link retargeted", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.Remove(filepath.Join(dir, "link")))
			require.NoError(t, os.Symlink("run.sh", filepath.Join(dir, "link")))
			return dir
		}, dirty: true},
		{name: "racily clean", change: func(t *testing.T, dir string) string {
			fi, err := os.Stat(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			require.NoError(t, os.Chtimes(filepath.Join(dir, ".git", "index"), fi.ModTime(), fi.ModTime()))
			return dir
		}},
		{name: "repository inside the worktree", change: func(t *testing.T, dir string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "vendor", "other"), 0o755))
			gittest.Run(t, filepath.Join(dir, "vendor", "other"), "init", "-q")
			gitstoretest.CheckedByGit(t, filepath.Join(dir, "vendor", "other"))
			return dir
		}, dirty: true},
		{name: "index version 4", change: func(t *testing.T, dir string) string {
			gittest.Run(t, dir, "update-index", "--index-version", "4")
			return dir
		}, proven: true},
		{name: "split index", change: func(t *testing.T, dir string) string {
			gittest.Run(t, dir, "update-index", "--split-index")
			return dir
		}},
		{name: "detached HEAD", change: func(t *testing.T, dir string) string {
			gittest.Run(t, dir, "checkout", "-q", "--detach")
			return dir
		}, proven: true},
		{name: "submodule", change: func(t *testing.T, dir string) string {
			head := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
			gittest.Run(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
			gittest.Run(t, dir, "commit", "-qm", "submodule")
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755)) // not checked out
			return dir
		}},
		{name: "configuration includes", change: func(t *testing.T, dir string) string {
			gittest.Run(t, dir, "config", "include.path", "extra.config")
			return dir
		}},
		{name: "linked worktree", change: func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			gittest.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			// its files are as new as its index: dated back, then indexed again
			for _, f := range strings.Split(strings.TrimRight(gittest.Run(t, wt, "ls-files", "-z"), "\x00"), "\x00") {
				old := time.Now().Add(-time.Hour)
				_ = os.Chtimes(filepath.Join(wt, f), old, old)
			}
			gittest.Run(t, wt, "update-index", "--refresh")
			return wt
		}, proven: true},
		{name: "linked worktree, untracked file", change: func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			gittest.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			return create("new.txt")(t, wt)
		}, dirty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateGitEnv(t)
			dir := cleanRepo(t)
			if tt.change != nil {
				dir = tt.change(t, dir)
			}
			r, err := OpenIn(dir)
			require.NoError(t, err)
			proven := r.proveWorktreeClean(t.Context()) == nil
			status := gitStatus(t, dir)
			require.Equal(t, tt.dirty, status != "", "git status: %q", status)
			if proven {
				require.Empty(t, status, "proven clean while git status lists changes")
			}
			require.Equal(t, tt.proven, proven)
			data, err := r.WorktreeStatus(t.Context())
			require.NoError(t, err)
			require.Equal(t, status, string(data), "WorktreeStatus says what git status says")
		})
	}
}

// nestedIgnore commits src/.gitignore with patterns, then creates the
// untracked file rel.
func nestedIgnore(patterns, rel string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		writeOld(t, dir, "src/.gitignore", patterns)
		gittest.Run(t, dir, "add", "src/.gitignore")
		gittest.Run(t, dir, "commit", "-qm", "nested")
		return create(rel)(t, dir)
	}
}

// create writes untracked files (with content) and returns the worktree.
func create(rels ...string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		for _, rel := range rels {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(rel+"\n"), 0o644))
		}
		return dir
	}
}

// gitStatus is what git status says, without refreshing the index.
func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	c := gitCmd(dir, statusArgs...)
	c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	require.NoError(t, err)
	return string(out)
}

// TestWorktreeProofUnborn: a repository with no commit has nothing the
// index could match.
func TestWorktreeProofUnborn(t *testing.T) {
	isolateGitEnv(t)
	dir := gitInit(t)
	r, err := OpenIn(dir)
	require.NoError(t, err)
	require.ErrorIs(t, r.proveWorktreeClean(t.Context()), errWorktreeUnproven)
	writeOld(t, dir, "a.txt", "a\n")
	gittest.Run(t, dir, "add", "a.txt")
	require.ErrorIs(t, r.proveWorktreeClean(t.Context()), errWorktreeUnproven)
}

// TestWorktreeProofBounds: past maxProvenEntries tracked files the proof
// gives up at once and git status answers.
func TestWorktreeProofBounds(t *testing.T) {
	isolateGitEnv(t)
	dir := gitInit(t)
	for i := 0; i <= maxProvenEntries; i++ {
		writeOld(t, dir, "pkg"+strconv.Itoa(i%17)+"/file"+strconv.Itoa(i)+".go", "package p\n")
	}
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "many")
	r, err := OpenIn(dir)
	require.NoError(t, err)
	require.ErrorIs(t, r.proveWorktreeClean(t.Context()), errWorktreeUnproven)
	require.NoError(t, os.Remove(filepath.Join(dir, "pkg0", "file0.go")))
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "one fewer")
	require.NoError(t, r.proveWorktreeClean(t.Context()), "at the bound, proven")
	data, err := r.WorktreeStatus(t.Context())
	require.NoError(t, err)
	require.Empty(t, data)
}
