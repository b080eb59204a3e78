package cmd_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// lkWorld is an org memory remote (bare) with a maintainer's clone, and
// project repositories, in a sandboxed HOME and cache directory, driven by
// the built git-mem binary and the git CLI.
type lkWorld struct {
	*sandbox
	org, maintainer, cache string
}

func newLinkWorld(t *testing.T) *lkWorld {
	t.Helper()
	w := &lkWorld{sandbox: newSandbox(t)}
	w.org = filepath.Join(w.home, "org.git")
	w.maintainer = filepath.Join(w.home, "maintainer")
	w.cache = filepath.Join(w.home, "cache")
	w.gitIn(w.home, "init", "-q", "--bare", "-b", "main", w.org)
	gitstoretest.CheckedByGit(t, w.org)
	w.gitIn(w.home, "clone", "-q", w.org, w.maintainer)
	gitstoretest.CheckedByGit(t, w.maintainer)
	w.gitIn(w.maintainer, "config", "user.name", "Maintainer")
	w.gitIn(w.maintainer, "config", "user.email", "maintainer@example.com")
	return w
}

func (w *lkWorld) gitIn(dir string, args ...string) string {
	w.t.Helper()
	return (&syWorld{sandbox: w.sandbox}).gitIn(dir, args...)
}

// project makes another project repository.
func (w *lkWorld) project(name string) string {
	w.t.Helper()
	dir := filepath.Join(w.home, name)
	w.gitIn(w.home, "init", "-q", "-b", "main", dir)
	gitstoretest.CheckedByGit(w.t, dir)
	w.gitIn(dir, "config", "user.name", name)
	w.gitIn(dir, "config", "user.email", name+"@example.com")
	return dir
}

// mem runs git mem in dir with the sandbox's cache directory.
func (w *lkWorld) mem(dir string, args ...string) (string, string, int) {
	return w.memEnv(dir, []string{"XDG_CACHE_HOME=" + w.cache}, args...)
}

func (w *lkWorld) memOK(dir string, args ...string) string {
	w.t.Helper()
	out, errOut, code := w.mem(dir, args...)
	require.Equal(w.t, 0, code, "git mem %s: %s%s", strings.Join(args, " "), out, errOut)
	return out
}

// orgAdd adds a memory to the org store from the maintainer's clone.
func (w *lkWorld) orgAdd(text string) {
	w.t.Helper()
	w.memOK(w.maintainer, "add", "--source", "user", "--", text)
	w.memOK(w.maintainer, "sync")
}

// copies are the local copies in the cache, checked by git when the test ends.
func (w *lkWorld) copies() []string {
	w.t.Helper()
	entries, err := os.ReadDir(filepath.Join(w.cache, "git-mem", "links"))
	require.NoError(w.t, err)
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(w.cache, "git-mem", "links", e.Name()))
	}
	return out
}

func TestLinkListUnlink(t *testing.T) {
	w := newLinkWorld(t)
	w.orgAdd("releases are cut on Tuesdays from the release branch")
	a, b := w.repo, w.project("api")

	out := w.memOK(a, "link", "acme", w.org)
	require.Contains(t, out, "linked acme (read-only)")
	require.Contains(t, out, "fetched 1 memory")
	copies := w.copies()
	require.Len(t, copies, 1)
	gitstoretest.CheckedByGit(t, filepath.Join(copies[0], "repo.git"))
	// the recall snapshot was brought forward over the link: the next
	// session's hooks do not read the whole linked store
	snapshot := filepath.Join(a, ".git", "mem", "recall.snapshot")
	data, err := os.ReadFile(snapshot)
	require.NoError(t, err)
	require.Contains(t, string(data), "org:acme")

	// a second project linking the same URL shares the copy, fetched once
	out = w.memOK(b, "link", "acme", w.org)
	require.Contains(t, out, "was fetched just now")
	require.Len(t, w.copies(), 1)

	require.Equal(t, w.org, w.gitIn(a, "config", "mem.link.acme.url"))
	require.Equal(t, "false", w.gitIn(a, "config", "mem.link.acme.write"))
	out = w.memOK(a, "link", "--list")
	require.Contains(t, out, "acme  "+w.org+"  read-only  1 memory, fetched just now")
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.memOK(a, "link", "--list", "--json")), &listed))
	require.Len(t, listed, 1)
	require.Equal(t, "org:acme", listed[0]["scope"])
	require.Equal(t, float64(1), listed[0]["memories"])

	// another URL under a taken name is refused; the same one again is fine
	_, errOut, code := w.mem(a, "link", "acme", w.maintainer)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "already links")
	w.memOK(a, "link", "acme", w.org)

	out = w.memOK(a, "unlink", "acme")
	require.Contains(t, out, "unlinked acme")
	data, err = os.ReadFile(snapshot)
	require.NoError(t, err)
	require.NotContains(t, string(data), "org:acme", "the snapshot no longer holds the link's memories")
	require.Contains(t, w.memOK(a, "link", "--list"), "no linked stores")
	_, _, code = w.mem(a, "unlink", "acme")
	require.Equal(t, 1, code)
	require.Len(t, w.copies(), 1, "the copy stays for the other project")

	// a URL that cannot be fetched makes no link
	_, errOut, code = w.mem(a, "link", "typo", filepath.Join(w.home, "maintainer", ".git", "nowhere"))
	require.Equal(t, 1, code, errOut)
	require.Contains(t, w.memOK(a, "link", "--list"), "no linked stores")
}

func TestLinkRefusesHostileInput(t *testing.T) {
	w := newLinkWorld(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"link", "-x", w.org}, 2, ""},
		{[]string{"link", "a.b", w.org}, 1, "link name"},
		{[]string{"link", "a/b", w.org}, 1, "link name"},
		{[]string{"link", "org:x", w.org}, 1, "link name"},
		{[]string{"link", "x", "ext::sh -c touch% pwned"}, 1, "remote helper"},
		{[]string{"link", "x", "--", "--upload-pack=touch pwned"}, 1, "option"},
		{[]string{"link", "x", "ssh://-oProxyCommand=touch%20pwned/x"}, 1, "ssh"},
		{[]string{"link", "x", "https://ghp_secret123@github.com/acme/memory.git"}, 1, "credentials"},
		{[]string{"link", "x", "https://user:hunter2@github.com/acme/memory.git"}, 1, "credentials"},
		{[]string{"link", "x"}, 2, ""},
		{[]string{"unlink", "../x"}, 1, "link name"},
	} {
		out, errOut, code := w.mem(w.repo, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
		require.NotContains(t, errOut+out, "ghp_secret123")
		require.NotContains(t, errOut+out, "hunter2")
	}
	_, err := os.Stat(filepath.Join(w.repo, "pwned"))
	require.True(t, os.IsNotExist(err))
	cfg := w.gitIn(w.repo, "config", "--list", "--local")
	require.NotContains(t, cfg, "mem.link")
	_, err = os.Stat(filepath.Join(w.cache, "git-mem", "links"))
	require.True(t, os.IsNotExist(err), "nothing was fetched")
}

// doctor says how old each linked store's copy is, and that it is read
// offline when the last refresh failed.
func TestLinkDoctor(t *testing.T) {
	w := newLinkWorld(t)
	w.orgAdd("the staging database is reset every night")
	w.memOK(w.repo, "link", "acme", w.org)
	gitstoretest.CheckedByGit(t, filepath.Join(w.copies()[0], "repo.git"))
	out, errOut, _ := w.mem(w.repo, "doctor", "--offline")
	require.Contains(t, out, "ok    link acme: "+w.org+", 1 memory fetched just now", errOut)

	require.NoError(t, os.Rename(w.org, w.org+".away"))
	t.Cleanup(func() { os.Rename(w.org+".away", w.org) })
	_, errOut, code := w.mem(w.repo, "link", "--refresh")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "refreshing acme")
	out, _, _ = w.mem(w.repo, "doctor", "--offline")
	require.Contains(t, out, "warn  link acme: offline: the last refresh (just now) failed:")
	require.Contains(t, out, "the copy fetched just now is read")
	require.Contains(t, out, "fix: git mem link --refresh acme")
	require.Contains(t, w.memOK(w.repo, "link", "--list"), "the last refresh failed")
}

// hook runs a hook event of the binary in dir, as an agent would.
func (w *lkWorld) hook(dir, event, session string, extra map[string]any) string {
	w.t.Helper()
	p := map[string]any{"session_id": session, "cwd": dir, "transcript_path": "/t.jsonl"}
	switch event {
	case "session-start":
		p["hook_event_name"], p["source"] = "SessionStart", "startup"
	case "prompt":
		p["hook_event_name"] = "UserPromptSubmit"
	}
	for k, v := range extra {
		p[k] = v
	}
	data, err := json.Marshal(p)
	require.NoError(w.t, err)
	c := exec.Command(binary, "hook", event, "--agent", "claude")
	c.Dir, c.Env, c.Stdin = dir, append(w.env(), "XDG_CACHE_HOME="+w.cache), strings.NewReader(string(data))
	out, err := c.Output()
	require.NoError(w.t, err)
	return string(out)
}

// An org memory reaches recall, the session-start injection and the prompt
// injection of every project linking the org store, labelled org:NAME,
// after a refresh; a read-only link refuses writes and its memories are
// never written to by a read.
func TestLinkedMemoryReachesEveryProject(t *testing.T) {
	w := newLinkWorld(t)
	w.orgAdd("Across acme, releases are cut from the release branch on Tuesdays")
	w.memOK(w.maintainer, "add", "--pin", "--type", "convention", "--", "Every acme service exposes /healthz for the load balancer")
	w.memOK(w.maintainer, "sync")
	a, b := w.repo, w.project("api")
	for _, p := range []string{a, b} {
		w.gitIn(p, "commit", "-q", "--allow-empty", "-m", "init")
		w.memOK(p, "link", "acme", w.org)
	}
	gitstoretest.CheckedByGit(t, filepath.Join(w.copies()[0], "repo.git"))
	w.memOK(a, "add", "--", "This project's releases are cut by the release bot")

	out := w.memOK(a, "recall", "when are releases cut")
	require.Contains(t, out, "releases are cut from the release branch on Tuesdays")
	require.Contains(t, out, "org:acme")
	require.Contains(t, out, "cut by the release bot", "one ranking over the project's and the org's")
	var hits []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.memOK(a, "recall", "--json", "when are releases cut")), &hits))
	scopes := map[string]bool{}
	for _, h := range hits {
		scopes[h["scope"].(string)] = true
	}
	require.True(t, scopes["org:acme"], "%v", hits)
	require.True(t, scopes["project"], "%v", hits)

	for _, p := range []string{a, b} {
		start := w.hook(p, "session-start", "s1", nil)
		require.Contains(t, start, "exposes /healthz", filepath.Base(p))
		require.Contains(t, start, "org:acme")
		// a session of its own: the session start above showed the newest
		prompt := w.hook(p, "prompt", "p1", map[string]any{"prompt": "which branch are acme releases cut from on Tuesdays?"})
		require.Contains(t, prompt, "release branch on Tuesdays", filepath.Base(p))
	}

	// a new org memory reaches both projects once the shared copy is refreshed
	w.memOK(w.maintainer, "add", "--pin", "--type", "convention", "--", "acme services log as JSON lines to stdout")
	w.memOK(w.maintainer, "sync")
	require.NotContains(t, w.hook(a, "session-start", "s2", nil), "JSON lines", "reads never fetch")
	w.memOK(a, "link", "--refresh")
	for _, p := range []string{a, b} {
		require.Contains(t, w.hook(p, "session-start", "s3", nil), "acme services log as JSON lines", filepath.Base(p))
	}

	// read-only: a write to an org memory is refused, and nothing moves
	copyRepo := filepath.Join(w.copies()[0], "repo.git")
	tip := w.gitIn(copyRepo, "rev-parse", "refs/memory/main")
	var org string
	for _, h := range hits {
		if h["scope"] == "org:acme" {
			org = h["id"].(string)
		}
	}
	for _, args := range [][]string{{"confirm", org}, {"dispute", org, "--reason", "wrong"}, {"forget", org}, {"revise", org, "--", "changed"}} {
		_, errOut, code := w.mem(a, args...)
		require.Equal(t, 1, code, "%v", args)
		require.Contains(t, errOut, "read-only", "%v", args)
	}
	_, errOut, code := w.mem(a, "forget", "--purge", org)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "purge it in a clone of the org store")
	require.Equal(t, tip, w.gitIn(copyRepo, "rev-parse", "refs/memory/main"))
	require.Equal(t, 3, len(strings.Fields(w.gitIn(w.org, "ls-tree", "-r", "--name-only", "refs/memory/main", "memories/"))), "nothing of a project reached the org store")
}

// git mem add --to NAME writes to the local copy of a link made with
// --write, and git mem sync pushes it; without push rights the host's
// refusal is said, and the memory stays in the copy, unpushed.
func TestLinkWriteAndPush(t *testing.T) {
	w := newLinkWorld(t)
	w.orgAdd("the org store starts with one memory")
	// the project has a remote of its own for git mem sync
	proj := filepath.Join(w.home, "proj.git")
	w.gitIn(w.home, "init", "-q", "--bare", "-b", "main", proj)
	gitstoretest.CheckedByGit(t, proj)
	w.gitIn(w.repo, "commit", "-q", "--allow-empty", "-m", "init")
	w.gitIn(w.repo, "remote", "add", "origin", proj)
	w.gitIn(w.repo, "push", "-q", "origin", "main")

	// read-only first: --to is refused
	w.memOK(w.repo, "link", "acme", w.org)
	_, errOut, code := w.mem(w.repo, "add", "--to", "acme", "--", "the shared CI runners have 8 GB of memory")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "read-only")
	_, errOut, code = w.mem(w.repo, "add", "--to", "nope", "--", "the shared CI runners have 8 GB of memory")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no linked store org:nope")

	// the host refuses this user's pushes while the deny file is there
	hook := filepath.Join(w.org, "hooks", "pre-receive")
	deny := filepath.Join(w.org, "deny")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nif [ -e deny ]; then echo 'ERROR: Permission to acme/memory denied to proc.' >&2; exit 1; fi\n"), 0o755))
	require.NoError(t, os.WriteFile(deny, nil, 0o644))

	w.memOK(w.repo, "unlink", "acme")
	w.memOK(w.repo, "link", "--write", "acme", w.org)
	_, errOut, code = w.mem(w.repo, "add", "--to", "acme", "--", "the shared CI runners have 8 GB of memory")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "saved to the local copy of the linked store acme")
	require.Contains(t, w.memOK(w.repo, "link", "--list"), "1 unpushed")
	require.Contains(t, w.memOK(w.repo, "recall", "how much memory do the CI runners have"), "org:acme")

	out, errOut, code := w.mem(w.repo, "sync")
	require.Equal(t, 1, code, out)
	require.Contains(t, errOut, "Permission to acme/memory denied", "the host's own words")
	require.Contains(t, errOut, "1 memory kept in the local copy, unpushed")
	require.Contains(t, w.memOK(w.repo, "link", "--list"), "1 unpushed", "nothing is lost")
	require.Contains(t, w.memOK(w.repo, "recall", "how much memory do the CI runners have"), "8 GB")
	require.Equal(t, 1, len(strings.Fields(w.gitIn(w.org, "ls-tree", "-r", "--name-only", "refs/memory/main", "memories/"))))

	require.NoError(t, os.Remove(deny))
	out = w.memOK(w.repo, "sync")
	require.Contains(t, out, "pushed 1 memory to the linked store acme")
	require.NotContains(t, w.memOK(w.repo, "link", "--list"), "unpushed")
	require.Equal(t, 2, len(strings.Fields(w.gitIn(w.org, "ls-tree", "-r", "--name-only", "refs/memory/main", "memories/"))))
	// nothing of the project went to the org store, nor the org's to the project's remote
	require.Equal(t, 0, len(strings.Fields(w.gitIn(proj, "for-each-ref", "refs/memory/"))), "the project has no memory of its own to push")
	w.memOK(w.maintainer, "sync")
	require.Contains(t, w.memOK(w.maintainer, "list"), "8 GB")
}

// A purge in the org store travels to every linked copy, and no project
// that read the memory keeps its text in a cache: the project that
// refreshed and the one that did not.
func TestOrgPurgeReachesEveryProject(t *testing.T) {
	w := newLinkWorld(t)
	w.orgAdd("the staging admin password is kept in the ops vault under staging-admin")
	w.orgAdd("acme services expose /healthz for the load balancer")
	a, b := w.repo, w.project("api")
	for _, p := range []string{a, b} {
		w.gitIn(p, "commit", "-q", "--allow-empty", "-m", "init")
		w.memOK(p, "link", "acme", w.org)
		require.Contains(t, w.memOK(p, "recall", "where is the staging admin password kept"), "staging-admin")
		require.Contains(t, w.hook(p, "session-start", "s1", nil), "staging-admin")
	}
	copyRepo := filepath.Join(w.copies()[0], "repo.git")
	gitstoretest.CheckedByGit(t, copyRepo)
	for _, p := range []string{a, b} {
		out, err := exec.Command("grep", "-rl", "staging-admin", filepath.Join(p, ".git", "mem")).CombinedOutput()
		require.NoError(t, err, "the caches hold the text before the purge: %s", out)
	}
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.memOK(w.maintainer, "list", "--json")), &listed))
	var id string
	for _, m := range listed {
		if strings.Contains(m["text"].(string), "staging-admin") {
			id = m["id"].(string)
		}
	}
	require.NotEmpty(t, id)
	w.memOK(w.maintainer, "forget", "--purge", id)
	w.memOK(w.maintainer, "sync")

	w.memOK(a, "link", "--refresh")
	for _, p := range []string{a, b} {
		require.NotContains(t, w.memOK(p, "recall", "where is the staging admin password kept"), "staging-admin", filepath.Base(p))
		require.NotContains(t, w.hook(p, "session-start", "s2", nil), "staging-admin", filepath.Base(p))
		// no cache of the project holds the text
		out, err := exec.Command("grep", "-rl", "staging-admin", filepath.Join(p, ".git", "mem")).CombinedOutput()
		require.Error(t, err, "a cache still holds the purged text: %s", out)
	}
	out, err := exec.Command("git", "--git-dir="+copyRepo, "log", "--all", "-p").CombinedOutput()
	require.NoError(t, err)
	require.NotContains(t, string(out), "staging-admin", "no ref of the copy reaches the purged text")
	require.Contains(t, w.memOK(a, "recall", "what do acme services expose for the load balancer"), "/healthz")
}
