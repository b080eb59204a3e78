package cmd_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// A token of GitHub's shape, which the secret rules find.
const verifyToken = "ghp_" + "Zx8vQ2mK7pL4nR9sT1wY6bC3dF5gH0jE8aU2"

// newVerifyWorld is a sync world whose bare remote runs git mem verify as
// its pre-receive hook, as a server would, and a clone of it.
func newVerifyWorld(t *testing.T) (*syWorld, string) {
	t.Helper()
	w := newSyncWorld(t)
	hook := filepath.Join(w.remote, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte(fmt.Sprintf("#!/bin/sh\nexec '%s' verify\n", binary)), 0o755))
	return w, w.clone("Ann")
}

// push pushes refspecs from dir with the git CLI and returns git's output
// (the hook's lines come back prefixed "remote:") and whether it succeeded.
func (w *syWorld) push(dir string, args ...string) (string, bool) {
	w.t.Helper()
	c := exec.Command("git", append([]string{"-C", dir, "push", "origin"}, args...)...)
	c.Env = w.env()
	out, err := c.CombinedOutput()
	return string(out), err == nil
}

// remoteTip is the remote's value of ref, "" when it has none.
func (w *syWorld) remoteTip(ref string) string {
	w.t.Helper()
	c := exec.Command("git", "-C", w.remote, "rev-parse", "-q", "--verify", ref)
	c.Env = w.env()
	out, _ := c.Output()
	return strings.TrimSpace(string(out))
}

// commitFile commits content at path (with mode) on top of ref in dir, with
// git's plumbing alone: what a client without git-mem's checks can push.
// Empty content removes the path.
func (w *syWorld) commitFile(dir, ref, path, mode string, content []byte, msg string) string {
	w.t.Helper()
	index := filepath.Join(w.t.TempDir(), "index")
	git := func(stdin []byte, args ...string) string {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(w.env(), "GIT_INDEX_FILE="+index)
		if stdin != nil {
			c.Stdin = strings.NewReader(string(stdin))
		}
		out, err := c.CombinedOutput()
		require.NoError(w.t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	parent := strings.TrimSpace(w.gitIn(dir, "rev-parse", "-q", "--verify", ref))
	git(nil, "read-tree", parent)
	if len(content) == 0 {
		git(nil, "update-index", "--force-remove", path)
	} else {
		blob := git(content, "hash-object", "-w", "--stdin")
		git(nil, "update-index", "--add", "--cacheinfo", mode+","+blob+","+path)
	}
	tree := git(nil, "write-tree")
	commit := git([]byte(msg), "commit-tree", tree, "-p", parent)
	w.gitIn(dir, "update-ref", ref, commit)
	return commit
}

// document is a valid memory document of id and text, as git-mem writes it.
func document(id, text string) []byte {
	return []byte(fmt.Sprintf(`{"schema":1,"id":"%s","type":"fact","text":"%s","source":"user","trust":0.9,"agent":"cli","author":"Ann <ann@example.com>","created":"2026-11-30T12:00:00Z","updated":"2026-11-30T12:00:00Z","valid_from":"2026-11-30T12:00:00Z"}`+"\n", id, text))
}

const memoryRefspec = "refs/memory/main:refs/memory/main"

// TestVerifyAsPreReceiveHook: git mem verify installed as a bare remote's
// pre-receive hook accepts clean memory and refuses, with one line per
// memory and the remote's ref unchanged, what a write would have refused,
// for every new commit and not only the tip; other refs pass untouched.
func TestVerifyAsPreReceiveHook(t *testing.T) {
	const id = "abcdef0123456789"
	cases := []struct {
		name string
		// prepare makes the clone's history to push and returns the push's
		// arguments, and the commit at fault when it is not the tip
		prepare func(w *syWorld, dir string) (args []string, culprit string)
		refused string // "" when the push is accepted
		ref     string // the ref whose remote value is compared
	}{
		{"clean memory", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "CI runs on GitHub Actions")
			return []string{memoryRefspec}, ""
		}, "", "refs/memory/main"},
		{"secret", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--allow-secret", "--", "the bot's token is "+verifyToken)
			return []string{memoryRefspec}, ""
		}, "holds a secret (text: GitHub token at byte", "refs/memory/main"},
		{"secret in a key", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--allow-secret", "--key", "token "+verifyToken, "--", "the bot's token is in the vault")
			return []string{memoryRefspec}, ""
		}, "holds a secret (keys: GitHub token at byte 6)", "refs/memory/main"},
		{"secret in a commit before the tip", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			secret := w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100644", document(id, "token "+verifyToken), "mem: add")
			w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100644", nil, "mem: forget")
			return []string{memoryRefspec}, secret
		}, "memory " + id + ": holds a secret (text: GitHub token at byte 6)", "refs/memory/main"},
		{"invalid document", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			doc := strings.Replace(string(document(id, "a rumour")), `"type":"fact"`, `"type":"rumour"`, 1)
			w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100644", []byte(doc), "mem: add")
			return []string{memoryRefspec}, ""
		}, "memory " + id + ": invalid document: unknown type \"rumour\"", "refs/memory/main"},
		{"document under another id", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100644", document("abcdef0000000000", "misfiled"), "mem: add")
			return []string{memoryRefspec}, ""
		}, "differs from its file name", "refs/memory/main"},
		{"oversized document", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100644", document(id, strings.Repeat("x", 1<<20)), "mem: add")
			return []string{memoryRefspec}, ""
		}, "over the 1048576-byte maximum", "refs/memory/main"},
		{"a file outside the layout", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			w.commitFile(dir, "refs/memory/main", "notes.txt", "100644", []byte("anything at all\n"), "notes")
			return []string{memoryRefspec}, ""
		}, "not git-mem's layout: the root holds \"notes.txt\"", "refs/memory/main"},
		{"an executable document", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			w.commitFile(dir, "refs/memory/main", "memories/ab/"+id+".json", "100755", document(id, "runs"), "mem: add")
			return []string{memoryRefspec}, ""
		}, "not git-mem's layout: memories/ab/" + id + ".json has mode 100755", "refs/memory/main"},
		{"a tombstone holding text", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--", "first memory")
			w.commitFile(dir, "refs/memory/main", "purged/"+id, "100644", []byte(`{"id":"`+id+`","text":"what was purged"}`+"\n"), "mem: purge")
			return []string{memoryRefspec}, ""
		}, "purged/" + id + " holds more than the purged memory's id", "refs/memory/main"},
		{"proposal with a secret", func(w *syWorld, dir string) ([]string, string) {
			w.memOKIn(dir, "add", "--allow-secret", "--", "the bot's token is "+verifyToken)
			return []string{"refs/memory/main:refs/memory/proposals/ann/" + id}, ""
		}, "refs/memory/proposals/ann/" + id + " ", "refs/memory/proposals/ann/" + id},
		{"code is not memory", func(w *syWorld, dir string) ([]string, string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.env"), []byte("TOKEN="+verifyToken+"\n"), 0o644))
			w.gitIn(dir, "add", "config.env")
			w.gitIn(dir, "commit", "-q", "-m", "config with "+verifyToken)
			return []string{"main"}, ""
		}, "", "refs/heads/main"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, dir := newVerifyWorld(t)
			args, culprit := tc.prepare(w, dir)
			before := w.remoteTip(tc.ref)
			out, ok := w.push(dir, args...)
			require.NotContains(t, out, verifyToken, "a secret's value is never echoed")
			if tc.refused == "" {
				require.True(t, ok, out)
				require.NotContains(t, out, "git mem verify", "a clean push is accepted in silence")
				local := strings.TrimPrefix(strings.SplitN(args[0], ":", 2)[0], "refs/heads/")
				require.Equal(t, w.gitIn(dir, "rev-parse", local), w.remoteTip(tc.ref))
				return
			}
			require.False(t, ok, out)
			require.Contains(t, out, "remote: git mem verify: "+tc.ref+" ")
			require.Contains(t, out, tc.refused)
			require.Contains(t, out, "pre-receive hook declined")
			if culprit != "" {
				require.Contains(t, out, tc.ref+" "+culprit[:10]+": ", "the line names the commit at fault, not only the tip")
			}
			require.Equal(t, before, w.remoteTip(tc.ref), "the remote's ref is unchanged")
		})
	}
}

// TestVerifyHistoryRewrites: a force-push that drops history is refused
// unless a purge explains it: git mem forget --purge's rewrite, pushed by
// sync, is accepted, and the remote then no longer reaches the text. A
// memory ref is never deleted; a proposal is.
func TestVerifyHistoryRewrites(t *testing.T) {
	w, a := newVerifyWorld(t)
	b := w.clone("Bob")
	const leak = "zebra-quokka-17"
	w.memOKIn(a, "add", "--", "CI runs on GitHub Actions")
	id := strings.TrimSpace(w.memOKIn(a, "add", "--", "The internal build host is "+leak))
	w.memOKIn(a, "sync")
	w.memOKIn(b, "sync")
	w.memOKIn(b, "add", "--", "Use pnpm, not npm")
	w.memOKIn(b, "sync")
	w.memOKIn(a, "sync")
	tip := w.remoteTip("refs/memory/main")

	// a force-push of an older history drops Bob's memory (made with git
	// alone: git-mem would merge the fetched tip back in)
	w.gitIn(a, "update-ref", "refs/memory/main", "refs/memory/main~1")
	w.commitFile(a, "refs/memory/main", "memories/12/1234567890abcdef.json", "100644", document("1234567890abcdef", "Release notes live in CHANGELOG.md"), "mem: add")
	out, ok := w.push(a, "--force", memoryRefspec)
	require.False(t, ok, out)
	require.Contains(t, out, "remote: git mem verify: refs/memory/main ")
	require.Contains(t, out, "rewrites history: not a fast-forward: 1 commit of the old tip")
	require.Equal(t, tip, w.remoteTip("refs/memory/main"))

	// deleting the memory ref is refused; deleting a proposal is not
	out, ok = w.push(a, ":refs/memory/main")
	require.False(t, ok, out)
	require.Contains(t, out, "the ref would be deleted with its history")
	require.Equal(t, tip, w.remoteTip("refs/memory/main"))
	_, ok = w.push(b, "refs/memory/main:refs/memory/proposals/bob/"+id)
	require.True(t, ok)
	out, ok = w.push(b, ":refs/memory/proposals/bob/"+id)
	require.True(t, ok, out)
	require.Empty(t, w.remoteTip("refs/memory/proposals/bob/"+id))

	// a purge rewrites history: its push is accepted
	w.gitIn(a, "update-ref", "refs/memory/main", tip) // back in step with the remote
	out, errOut, code := w.memIn(a, "forget", "--purge", id)
	require.Equal(t, 0, code, out+errOut)
	out, errOut, code = w.memIn(a, "sync")
	require.Equal(t, 0, code, "the purge's push is accepted: %s%s", out, errOut)
	require.Equal(t, w.gitIn(a, "rev-parse", "refs/memory/main"), w.remoteTip("refs/memory/main"))
	require.Empty(t, w.reachableHolding(w.remote, leak), "the remote no longer reaches the text")
	require.Contains(t, w.gitIn(w.remote, "ls-tree", "--name-only", "refs/memory/main", "purged/"), id)

	// so is the teammate's pull and sync that learns it
	w.memOKIn(b, "add", "--", "Deploys go out on Tuesdays")
	out, errOut, code = w.memIn(b, "sync")
	require.Equal(t, 0, code, out+errOut)
	require.Empty(t, w.reachableHolding(w.remote, leak))
	w.memOKIn(a, "sync")
	require.Equal(t, 3, w.count(a), "every memory but the purged one")
}

// TestVerifyInCI: --ref checks one ref of a clone after the push, as a CI
// job does: the commits since --since, or the whole history.
func TestVerifyInCI(t *testing.T) {
	w, a := newVerifyWorld(t)
	require.NoError(t, os.Remove(filepath.Join(w.remote, "hooks", "pre-receive"))) // a host without server hooks
	w.memOKIn(a, "add", "--", "CI runs on GitHub Actions")
	w.memOKIn(a, "push")
	before := w.remoteTip("refs/memory/main")
	w.memOKIn(a, "add", "--allow-secret", "--", "the bot's token is "+verifyToken)
	w.memOKIn(a, "push")
	after := w.remoteTip("refs/memory/main")

	ci := filepath.Join(w.home, "ci")
	w.gitIn(w.home, "clone", "-q", w.remote, ci)
	gitstoretest.CheckedByGit(t, ci)
	w.gitIn(ci, "fetch", "-q", "origin", "+refs/memory/*:refs/memory/*")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"the push's commits", []string{"--ref", "refs/memory/main", "--since", before}, 1, "git mem verify: refs/memory/main " + after[:10] + ": memory "},
		{"the whole history", []string{"--ref", "refs/memory/main"}, 1, "holds a secret (text: GitHub token at byte"},
		{"before the secret", []string{"--ref", "refs/memory/main", "--since", after}, 0, ""},
		{"a created ref", []string{"--ref", "refs/memory/main", "--since", strings.Repeat("0", 40)}, 1, "refs/memory/main fails the check (1 problem above)"},
		{"a ref that is no memory's", []string{"--ref", "refs/heads/main"}, 2, "--ref names a memory ref"},
		{"--since alone", []string{"--since", before}, 2, "--since needs --ref"},
		{"a ref not fetched", []string{"--ref", "refs/memory/proposals/x/y"}, 1, "there is no ref refs/memory/proposals/x/y in this repository; in CI, fetch the memory refs first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := w.memIn(ci, append([]string{"verify"}, tc.args...)...)
			require.Equal(t, tc.code, code, out+errOut)
			require.Empty(t, out)
			require.NotContains(t, errOut, verifyToken)
			if tc.want == "" {
				require.Empty(t, errOut)
			} else {
				require.Contains(t, errOut, tc.want)
			}
		})
	}
}

// TestVerifySHA256Server: git-mem reads SHA-1 repositories only. On a
// SHA-256 server the hook lets code through and refuses memory refs,
// saying why.
func TestVerifySHA256Server(t *testing.T) {
	sb := newSandbox(t)
	remote := filepath.Join(sb.home, "sha256.git")
	run := func(dir string, stdin string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = sb.env()
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	run(sb.home, "", "init", "-q", "--bare", "--object-format=sha256", "-b", "main", remote)
	gitstoretest.CheckedByGit(t, remote)
	require.NoError(t, os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(fmt.Sprintf("#!/bin/sh\nexec '%s' verify\n", binary)), 0o755))
	clone := filepath.Join(sb.home, "clone256")
	run(sb.home, "", "init", "-q", "--object-format=sha256", "-b", "main", clone)
	gitstoretest.CheckedByGit(t, clone)
	run(clone, "", "config", "user.name", "Ann")
	run(clone, "", "config", "user.email", "ann@example.com")
	run(clone, "", "commit", "-q", "--allow-empty", "-m", "code")
	run(clone, "", "push", "-q", remote, "main")

	blob := run(clone, string(document("abcdef0123456789", "hello")), "hash-object", "-w", "--stdin")
	fan := run(clone, "100644 blob "+blob+"\tabcdef0123456789.json\n", "mktree")
	mems := run(clone, "040000 tree "+fan+"\tab\n", "mktree")
	root := run(clone, "040000 tree "+mems+"\tmemories\n", "mktree")
	commit := run(clone, "mem: add", "commit-tree", root)
	c := exec.Command("git", "-C", clone, "push", remote, commit+":refs/memory/main")
	c.Env = sb.env()
	out, err := c.CombinedOutput()
	require.Error(t, err, "%s", out)
	require.Contains(t, string(out), "remote: git mem: cannot check the memory pushed, so it is refused")
	require.Contains(t, string(out), "SHA-256")
}
