package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
)

func TestParseRefUpdates(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	zero := strings.Repeat("0", 40)
	cases := []struct {
		name  string
		input string
		want  []RefUpdate
		err   error
	}{
		{"memory and code", a + " " + b + " refs/memory/main\n" + a + " " + b + " refs/heads/main\n",
			[]RefUpdate{{ref: "refs/memory/main", old: mustHash(a), new: mustHash(b), pending: true}}, nil},
		{"created and deleted", zero + " " + b + " refs/memory/proposals/ann/x\r\n\n" + a + " " + zero + " refs/memory/private\n",
			[]RefUpdate{{ref: "refs/memory/proposals/ann/x", new: mustHash(b), pending: true}, {ref: "refs/memory/private", old: mustHash(a), pending: true}}, nil},
		{"code only, in SHA-256", strings.Repeat("c", 64) + " " + strings.Repeat("d", 64) + " refs/heads/main\n", nil, nil},
		{"memory in SHA-256", strings.Repeat("c", 64) + " " + strings.Repeat("d", 64) + " refs/memory/main\n", nil, memerr.ErrUnsupportedFormat},
		{"not an object name", "HEAD " + b + " refs/memory/main\n", nil, memerr.ErrInvalid},
		{"two fields", a + " refs/memory/main\n", nil, memerr.ErrInvalid},
		{"nothing", "", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRefUpdates(strings.NewReader(tc.input))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func mustHash(s string) Hash {
	h, ok := parseHash(s)
	if !ok {
		panic(s)
	}
	return h
}

func TestSplitAlternates(t *testing.T) {
	sep := string(os.PathListSeparator)
	cases := []struct {
		name string
		list string
		want []string
	}{
		{"empty", "", nil},
		{"one", "/srv/a/objects", []string{"/srv/a/objects"}},
		{"two and an empty entry", "/a" + sep + sep + "/b", []string{"/a", "/b"}},
		{"quoted with the separator", `"/odd` + sep + `dir"` + sep + "/b", []string{"/odd" + sep + "dir", "/b"}},
		{"quoted with an escape", `"/a\"q"`, []string{`/a"q`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, splitAlternates(tc.list))
		})
	}
}

// TestUseObjectEnvironment: objects written where GIT_OBJECT_DIRECTORY
// points (a pre-receive hook's quarantine) are read once the repository
// follows git's environment, and the repository's own objects still are
// through GIT_ALTERNATE_OBJECT_DIRECTORIES.
func TestUseObjectEnvironment(t *testing.T) {
	dir := gitInit(t)
	objects := filepath.Join(dir, ".git", "objects")
	quarantine := filepath.Join(objects, "tmp_objdir-incoming-test")
	require.NoError(t, os.MkdirAll(quarantine, 0o755))
	write := func(content string, env ...string) Hash {
		c := exec.Command("git", "-C", dir, "hash-object", "-w", "--stdin")
		c.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir), env...)
		c.Stdin = strings.NewReader(content)
		out, err := c.Output()
		require.NoError(t, err)
		return mustHash(strings.TrimSpace(string(out)))
	}
	own := write("in the repository\n")
	pushed := write("in quarantine\n", "GIT_OBJECT_DIRECTORY="+quarantine, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+objects)

	r, err := Open(dir)
	require.NoError(t, err)
	_, err = r.readBlob(pushed)
	require.ErrorIs(t, err, memerr.ErrCorrupt, "outside the hook's environment the quarantine is not read")

	env := map[string]string{"GIT_OBJECT_DIRECTORY": "tmp_objdir-incoming-test", "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects}
	r.UseObjectEnvironment(func(k string) string { return env[k] }, objects)
	for h, want := range map[Hash]string{own: "in the repository\n", pushed: "in quarantine\n"} {
		data, err := r.readBlob(h)
		require.NoError(t, err)
		require.Equal(t, want, string(data))
	}
	require.NoError(t, os.RemoveAll(quarantine)) // git drops a refused push's quarantine
}

func TestCheckDocumentSecrets(t *testing.T) {
	const token = "ghp_" + "Zx8vQ2mK7pL4nR9sT1wY6bC3dF5gH0jE8aU2"
	clean := func() *Memory {
		return &Memory{ID: "abcdef0123456789", Text: "CI runs on GitHub Actions", Tags: []string{"ci"}, Paths: []string{".github/workflows/ci.yml"}, Author: "Ann <ann@example.com>"}
	}
	cases := []struct {
		name   string
		change func(m *Memory)
		want   string // "" when clean
	}{
		{"clean", func(*Memory) {}, ""},
		{"text", func(m *Memory) { m.Text = "the token is " + token }, "text: GitHub token at byte 13"},
		{"key", func(m *Memory) { m.Keys = []string{"which token " + token} }, "keys: GitHub token at byte 12"},
		{"path with a password", func(m *Memory) { m.Paths = []string{"https://ann:hunter2hunter2@example.com/x"} }, "paths: "},
		{"tag", func(m *Memory) { m.Tags = []string{token} }, "tags: GitHub token"},
		{"anchor branch", func(m *Memory) { m.Anchor = &Anchor{Branch: "fix/" + token} }, "anchor branch: GitHub token"},
		{"session", func(m *Memory) { m.Session = token }, "session: GitHub token"},
		{"event reason", func(m *Memory) { m.Events = []Event{{Op: EventDispute, Reason: "leaked " + token}} }, "event 1: GitHub token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := clean()
			tc.change(m)
			err := checkDocumentSecrets(m)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, memerr.ErrSecret)
			require.Contains(t, secretReason(err), tc.want)
			require.NotContains(t, err.Error(), token)
		})
	}
}

// verifyRepo is a disk repository with a store on refs/memory/main.
func verifyRepo(t *testing.T) (*Repo, *Store) {
	t.Helper()
	r, err := Open(gitInit(t))
	require.NoError(t, err)
	return r, storeOn(r, newClock())
}

// commitOn commits the root tree change makes of parent's, with git-mem's
// own object writer: what a client without its checks could push.
func commitOn(t *testing.T, r *Repo, parent Hash, change func(root []treeEntry) []treeEntry) Hash {
	t.Helper()
	c, err := r.readCommit(parent)
	require.NoError(t, err)
	root, err := r.readTree(Hash(c.TreeHash))
	require.NoError(t, err)
	tree, err := r.writeTree(change(append([]treeEntry(nil), root.Entries...)))
	require.NoError(t, err)
	h, err := r.writeCommit(tree, []Hash{parent}, "mem: hand-made\n", r.Now())
	require.NoError(t, err)
	return h
}

// TestVerifyUpdates runs Verify on updates of a repository after the fact
// (as --ref does in CI): what it refuses, and the rewrites a purge explains.
func TestVerifyUpdates(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// build returns the update to check
		build func(t *testing.T, r *Repo, s *Store) RefUpdate
		kind  RejectKind // "" when accepted
		want  string
	}{
		{"a clean fast-forward", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			old, _ := s.Tip()
			add(t, s, "second")
			tip, _ := s.Tip()
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, "", ""},
		{"a purge's rewrite", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			m := add(t, s, "purge me")
			add(t, s, "third")
			old, _ := s.Tip()
			_, err := r.Purge(ctx, m.ID)
			require.NoError(t, err)
			tip, _ := s.Tip()
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, "", ""},
		{"a rewrite no purge explains", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			keep, _ := s.Tip()
			add(t, s, "dropped by the rewrite")
			old, _ := s.Tip()
			tip := commitOn(t, r, keep, func(root []treeEntry) []treeEntry { return root })
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, RejectRewrite, "1 commit of the old tip"},
		{"a purge that also drops another memory", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			keep, _ := s.Tip()
			m := add(t, s, "purge me")
			add(t, s, "dropped without a tombstone")
			old, _ := s.Tip()
			require.NoError(t, r.refs.update(RefMain, keep, old))
			require.NoError(t, r.recordTombstone(ctx, m.ID))
			tip, _ := s.Tip()
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, RejectRewrite, "2 commits of the old tip"},
		{"deleting the memory ref", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			old, _ := s.Tip()
			return RefUpdate{ref: RefMain, old: old}
		}, RejectDeletion, "deleted"},
		{"deleting a proposal", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			add(t, s, "first")
			old, _ := s.Tip()
			return RefUpdate{ref: proposalsPrefix + "ann/abcdef0123456789", old: old}
		}, "", ""},
		{"a dropped tombstone", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			m := add(t, s, "purge me")
			add(t, s, "second")
			_, err := r.Purge(ctx, m.ID)
			require.NoError(t, err)
			old, _ := s.Tip()
			tip := commitOn(t, r, old, func(root []treeEntry) []treeEntry { return setEntry(root, purgedDir, gitobj.ModeDir, zeroHash) })
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, rejectPurged, "drops the tombstone"},
		{"a purged memory back", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			m := add(t, s, "purge me")
			old, _ := s.Tip()
			c, err := r.readCommit(old)
			require.NoError(t, err)
			_, err = r.Purge(ctx, m.ID)
			require.NoError(t, err)
			tip, _ := s.Tip()
			before, err := r.readTree(Hash(c.TreeHash))
			require.NoError(t, err)
			back := commitOn(t, r, tip, func(root []treeEntry) []treeEntry {
				return setEntry(root, memoriesDir, gitobj.ModeDir, Hash(findEntry(before, memoriesDir).Hash))
			})
			return RefUpdate{ref: RefMain, old: tip, new: back}
		}, rejectPurged, "its document is back"},
		{"a ref set to a blob", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			blob, err := r.writeBlob([]byte("not a commit\n"))
			require.NoError(t, err)
			return RefUpdate{ref: RefMain, new: blob}
		}, RejectLayout, "which is no commit"},
		{"a document that is a directory", func(t *testing.T, r *Repo, s *Store) RefUpdate {
			m := add(t, s, "first")
			old, _ := s.Tip()
			empty, err := r.writeTree(nil)
			require.NoError(t, err)
			fan, err := r.writeTree([]treeEntry{{Name: blobName(m.ID), Mode: gitobj.ModeDir, Hash: empty}})
			require.NoError(t, err)
			mems, err := r.writeTree([]treeEntry{{Name: fanout(m.ID), Mode: gitobj.ModeDir, Hash: fan}})
			require.NoError(t, err)
			tip := commitOn(t, r, old, func(root []treeEntry) []treeEntry { return setEntry(root, memoriesDir, gitobj.ModeDir, mems) })
			return RefUpdate{ref: RefMain, old: old, new: tip}
		}, RejectLayout, "has mode 40000, not a regular file's"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, s := verifyRepo(t)
			u := tc.build(t, r, s)
			got, err := r.Verify(ctx, []RefUpdate{u})
			require.NoError(t, err)
			if tc.kind == "" {
				require.Empty(t, got)
				return
			}
			require.NotEmpty(t, got)
			require.Equal(t, tc.kind, got[0].Kind, "%+v", got)
			require.Contains(t, got[0].Reason, tc.want)
			require.Equal(t, u.ref, got[0].Ref)
		})
	}
}

// TestVerifyWritesNothing: checking a purge's rewrite rewrites history in
// memory; the repository judged gets no object.
func TestVerifyWritesNothing(t *testing.T) {
	ctx := context.Background()
	r, s := verifyRepo(t)
	add(t, s, "first")
	m := add(t, s, "purge me")
	add(t, s, "third")
	old, _ := s.Tip()
	// the update as a server sees it: the old history is still there, the
	// new one is a rewrite made elsewhere (here: a purge, then the ref put back)
	_, err := r.Purge(ctx, m.ID)
	require.NoError(t, err)
	tip, _ := s.Tip()
	require.NoError(t, r.refs.update(RefMain, old, tip))
	count := func() int {
		n := 0
		require.NoError(t, filepath.Walk(filepath.Join(r.CommonDir, "objects"), func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				n++
			}
			return err
		}))
		return n
	}
	before := count()
	got, err := r.Verify(ctx, []RefUpdate{{ref: RefMain, old: old, new: tip}})
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, before, count())
}
