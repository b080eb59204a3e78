package cmd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// syWorld is a bare remote with clones, in a sandboxed HOME, driven by the
// built git-mem binary and the git CLI.
type syWorld struct {
	*sandbox
	remote string
}

func newSyncWorld(t *testing.T) *syWorld {
	t.Helper()
	w := &syWorld{sandbox: newSandbox(t), remote: filepath.Join(t.TempDir(), "remote.git")}
	w.gitIn(w.home, "init", "-q", "--bare", "-b", "main", w.remote)
	gitstoretest.CheckedByGit(t, w.remote)
	require.NoError(t, os.WriteFile(filepath.Join(w.repo, "README"), []byte("code\n"), 0o644))
	w.git("add", "README")
	w.git("commit", "-q", "-m", "code")
	w.git("push", "-q", w.remote, "main")
	return w
}

func (w *syWorld) gitIn(dir string, args ...string) string {
	w.t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = w.env()
	out, err := c.CombinedOutput()
	require.NoError(w.t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

func (w *syWorld) clone(name string) string {
	w.t.Helper()
	dir := filepath.Join(w.home, name)
	w.gitIn(w.home, "clone", "-q", w.remote, dir)
	gitstoretest.CheckedByGit(w.t, dir)
	w.gitIn(dir, "config", "user.name", name)
	w.gitIn(dir, "config", "user.email", strings.ToLower(name)+"@example.com")
	return dir
}

func (w *syWorld) memOKIn(dir string, args ...string) string {
	w.t.Helper()
	out, errOut, code := w.memIn(dir, args...)
	require.Equal(w.t, 0, code, "git mem %s: %s%s", strings.Join(args, " "), out, errOut)
	return out
}

func (w *syWorld) count(dir string) int {
	w.t.Helper()
	return len(strings.Fields(w.gitIn(dir, "ls-tree", "-r", "--name-only", "refs/memory/main", "memories/")))
}

func TestSyncProcessesOnTwoClones(t *testing.T) {
	w := newSyncWorld(t)
	a, b := w.clone("Ann"), w.clone("Bob")
	w.memOKIn(a, "add", "--", "base memory")
	w.memOKIn(a, "sync")
	w.memOKIn(b, "sync")

	// Three writer processes per clone, each also syncing half-way.
	const procs, each = 3, 4
	var wg sync.WaitGroup
	failures := make(chan string, 2*procs*(each+1))
	for _, dir := range []string{a, b} {
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func(dir string, p int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					args := []string{"add", "--agent", fmt.Sprintf("agent-%d", p), "--", syDistinct(fmt.Sprintf("%s/%d/%d", filepath.Base(dir), p, i))}
					if _, errOut, code := w.memIn(dir, args...); code != 0 {
						failures <- errOut
					}
					if i == each/2 {
						if _, errOut, code := w.memIn(dir, "sync"); code != 0 {
							failures <- "sync: " + errOut
						}
					}
				}
			}(dir, p)
		}
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	w.memOKIn(a, "sync")
	w.memOKIn(b, "sync")
	w.memOKIn(a, "sync")

	want := 1 + 2*procs*each
	if w.count(a) != want {
		t.Log(w.gitIn(a, "log", "--graph", "--format=%h %an %s", "refs/memory/main"))
		t.Log(w.gitIn(b, "log", "--graph", "--format=%h %an %s", "refs/memory/main"))
	}
	require.Equal(t, want, w.count(a), "nothing lost")
	tree := w.gitIn(a, "rev-parse", "refs/memory/main^{tree}")
	require.Equal(t, tree, w.gitIn(b, "rev-parse", "refs/memory/main^{tree}"))
	require.Equal(t, tree, w.gitIn(w.remote, "rev-parse", "refs/memory/main^{tree}"))
	for _, d := range []string{a, b, w.remote} {
		w.gitIn(d, "fsck", "--strict", "--no-progress")
	}
	require.Contains(t, w.gitIn(a, "log", "--graph", "--oneline", "refs/memory/main"), "mem: merge origin")

	// A second sync changes nothing.
	tipA, tipB := w.gitIn(a, "rev-parse", "refs/memory/main"), w.gitIn(b, "rev-parse", "refs/memory/main")
	for _, d := range []string{a, b} {
		out := w.memOKIn(d, "sync")
		require.Contains(t, out, "already up to date with origin")
		require.Contains(t, out, "nothing to push")
	}
	require.Equal(t, tipA, w.gitIn(a, "rev-parse", "refs/memory/main"))
	require.Equal(t, tipB, w.gitIn(b, "rev-parse", "refs/memory/main"))
}

func TestSyncRefusesDangerousRemotes(t *testing.T) {
	w := newSyncWorld(t)
	a := w.clone("Ann")
	w.memOKIn(a, "add", "--", "x")
	marker := filepath.Join(w.home, "pwned")
	for _, args := range [][]string{
		{"push", "--", "-oProxyCommand=touch " + marker},
		{"pull", "ext::sh -c touch% " + marker},
		{"sync", "--", "--upload-pack=touch " + marker},
		{"doctor", "--remote", "ext::sh -c touch% " + marker},
	} {
		out, errOut, code := w.memIn(a, args...)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.Contains(t, out+errOut, "refusing remote", "%v", args)
	}
	_, _, code := w.memIn(a, "push", "-oProxyCommand=touch "+marker)
	require.Equal(t, 2, code, "an option-looking argument without -- is a usage error")
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "no command ran")

	_, errOut, code := w.memIn(a, "pull", "https://user:s3cret-token@127.0.0.1:9/x.git")
	require.Equal(t, 1, code)
	require.NotContains(t, errOut, "s3cret")
	require.Contains(t, errOut, "https://127.0.0.1:9/x.git")
}

func TestPushNeverSendsPrivateMemory(t *testing.T) {
	w := newSyncWorld(t)
	a := w.clone("Ann")
	w.memOKIn(a, "add", "--private", "--", "my private note")
	w.memOKIn(a, "add", "--", "a shared fact")
	out := w.memOKIn(a, "push", "--json")
	var res struct {
		Remote string `json:"remote"`
		New    string `json:"new"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, "origin", res.Remote)
	require.Equal(t, w.gitIn(a, "rev-parse", "refs/memory/main"), res.New)
	refs := w.gitIn(w.remote, "for-each-ref", "--format=%(refname)")
	require.ElementsMatch(t, []string{"refs/heads/main", "refs/memory/main"}, strings.Fields(refs))
	w.memOKIn(a, "sync")
	require.NotContains(t, w.gitIn(w.remote, "for-each-ref"), "private")
}

func TestDoctorReportsUnfetchedMemoryAndShare(t *testing.T) {
	w := newSyncWorld(t)
	a := w.clone("Ann")
	w.memOKIn(a, "add", "--", "the team knows this")
	w.memOKIn(a, "push")
	c := w.clone("Cy") // a fresh clone does not bring refs/memory/*
	out := w.memOKIn(c, "doctor")
	require.Contains(t, out, "has memory that was never fetched here")
	require.Contains(t, out, "fix: git mem pull origin")
	require.Contains(t, out, "git mem share origin")
	// --json names the fix as an operation a script can read, beside the words
	var unfetched struct {
		Findings []struct{ Check, Fix, Action, Target string }
	}
	require.NoError(t, json.Unmarshal([]byte(w.memOKIn(c, "doctor", "--json")), &unfetched))
	pull := false
	for _, f := range unfetched.Findings {
		pull = pull || (f.Action == "pull" && f.Target == "origin" && f.Fix == "git mem pull origin")
	}
	require.True(t, pull, "%+v", unfetched.Findings)

	out = w.memOKIn(c, "share")
	require.Contains(t, out, "git config --add remote.origin.fetch '+refs/memory/main:refs/memory/remotes/origin/main'")
	require.Contains(t, w.memOKIn(c, "share"), "already shared")
	w.gitIn(c, "fetch", "-q")
	out = w.memOKIn(c, "doctor")
	require.Contains(t, out, "fetched but not merged")
	require.Contains(t, w.memOKIn(c, "pull", "--no-fetch"), "fast-forward")

	out = w.memOKIn(c, "doctor", "--json")
	var rep struct {
		OK       bool `json:"ok"`
		Findings []struct{ Check, Status, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.True(t, rep.OK)
	found := false
	for _, f := range rep.Findings {
		if f.Check == "remote origin" && f.Status == "ok" {
			found = true
		}
	}
	require.True(t, found, out)
	require.Contains(t, w.memOKIn(c, "doctor", "--offline"), "not contacted")

	// A stale lock under refs/memory is reported with the command that removes it.
	lock := filepath.Join(c, ".git", "refs", "memory", "main.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	old := mustOld(t, lock)
	_ = old
	out = w.memOKIn(c, "doctor", "--offline")
	require.Contains(t, out, "main.lock")
}

// syDistinct makes a memory text that shares no word with another seed's, so
// that near-duplicate detection keeps every one as a new memory.
func syDistinct(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	h := hex.EncodeToString(sum[:])
	return fmt.Sprintf("note %s %s %s %s", h[0:8], h[8:16], h[16:24], h[24:32])
}

// mustOld backdates a file past the stale-lock age.
func mustOld(t *testing.T, path string) string {
	t.Helper()
	c := exec.Command("touch", "-d", "1 hour ago", path)
	out, err := c.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return path
}

func TestPullJSONShape(t *testing.T) {
	w := newSyncWorld(t)
	a, b := w.clone("Ann"), w.clone("Bob")
	w.memOKIn(a, "add", "--", "from ann")
	w.memOKIn(a, "push")
	w.memOKIn(b, "add", "--", "from bob")
	out := w.memOKIn(b, "pull", "--json")
	var res struct {
		Remote string `json:"remote"`
		Merge  struct {
			Result string   `json:"result"`
			New    []string `json:"new"`
		} `json:"merge"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, "merged", res.Merge.Result)
	require.Len(t, res.Merge.New, 1)
	show := w.memOKIn(b, "show", res.Merge.New[0])
	require.Contains(t, show, "Ann <ann@example.com>", "a teammate's memory keeps its author")
}
