package gitstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/memerr"
)

// The tests below hold git-mem's own git layer against git itself: each
// sets a repository up as git leaves it in the field and asks both the
// same questions (cat-file --batch, rev-parse, for-each-ref).

// sameObjectsAsGit reads every object git cat-file --batch-all-objects
// shows through the repository's object database.
func sameObjectsAsGit(t *testing.T, dir string, r *Repo) {
	t.Helper()
	all := catFileAll(t, dir)
	require.NotEmpty(t, all)
	for h, want := range all {
		got, err := r.objects.Read(h)
		require.NoError(t, err, h.String())
		require.Equal(t, want.Type, got.Type, h.String())
		require.True(t, bytes.Equal(want.Data, got.Data), h.String())
	}
}

// sameRefsAsGit compares every ref git lists, and HEAD, with the
// repository's answers.
func sameRefsAsGit(t *testing.T, dir string, r *Repo) {
	t.Helper()
	want := map[string]Hash{}
	for _, line := range strings.Split(strings.TrimSpace(gittest.Run(t, dir, "for-each-ref", "--format=%(refname) %(objectname)")), "\n") {
		if line == "" {
			continue
		}
		name, hex, _ := strings.Cut(line, " ")
		h, ok := parseHash(hex)
		require.True(t, ok, line)
		want[name] = h
	}
	got, err := r.ListRefs("refs/")
	require.NoError(t, err)
	require.Equal(t, want, got, "the refs under refs/")
	for name, h := range want {
		one, err := r.resolveRef(name)
		require.NoError(t, err, name)
		require.Equal(t, h, one, name)
	}
	missing, err := r.resolveRef("refs/memory/none")
	require.NoError(t, err)
	require.True(t, missing.IsZero())

	head := r.Head()
	if branch, err := gitOut(dir, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		require.Equal(t, branch, head.Branch, "HEAD's branch")
	} else {
		require.Empty(t, head.Branch, "a detached HEAD")
	}
	commit, _ := gitOut(dir, "rev-parse", "-q", "--verify", "HEAD")
	require.Equal(t, commit, head.Commit, "HEAD's commit")
}

func gitOut(dir string, args ...string) (string, error) {
	c := gitCmd(dir, args...)
	out, err := c.Output()
	return strings.TrimSpace(string(out)), err
}

// TestPackLargeOffsetsAsGit: a pack whose index keeps its offsets in the
// 64-bit table (as git writes it for packs over 2 GiB; index-pack's offset
// threshold makes one of a small pack) is read as git reads it.
func TestPackLargeOffsetsAsGit(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	ids := addFacts(t, st, 20, "Far fact %d: its offset is kept in the large table.")
	for _, id := range ids[:10] {
		_, err := st.Revise(context.Background(), Writer{}, id, "Far fact "+id+", revised: a delta now.")
		require.NoError(t, err)
	}
	gittest.Run(t, dir, "gc", "-q", "--prune=now")
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	pack := mustGlobOne(t, filepath.Join(packDir, "*.pack"))
	idx := filepath.Join(packDir, strings.TrimSuffix(pack, ".pack")+".idx")
	require.NoError(t, os.Remove(idx))
	gittest.Run(t, dir, "index-pack", "--index-version=2,0x100", "-o", idx, filepath.Join(packDir, pack))
	// the offset table's entries with the high bit set point into the
	// large table: at least one object lies past the threshold
	data, err := os.ReadFile(idx)
	require.NoError(t, err)
	n := int(binary.BigEndian.Uint32(data[8+255*4:]))
	offsets := data[8+256*4+n*24 : 8+256*4+n*28]
	large := 0
	for i := 0; i < n; i++ {
		if binary.BigEndian.Uint32(offsets[i*4:])&0x80000000 != 0 {
			large++
		}
	}
	require.Greater(t, large, 0, "the index uses the large offset table")

	r, err := Open(dir)
	require.NoError(t, err)
	sameObjectsAsGit(t, dir, r)
	ms, err := NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 20)
}

// TestMultiPackIndexAndCommitGraph: with git maintenance's files present (a
// multi-pack-index over several packs, a commit-graph with changed paths)
// the store reads and writes as without them, and git reads what it wrote;
// after the multi-pack-index repacked and expired the packs it covered,
// the objects are still found.
func TestMultiPackIndexAndCommitGraph(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 3; i++ {
		addFacts(t, st, 4, fmt.Sprintf("Pack %d fact %%d: maintained by git.", i))
		gittest.Run(t, dir, "repack", "-q", "-d")
	}
	gittest.Run(t, dir, "multi-pack-index", "write")
	gittest.Run(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	require.FileExists(t, filepath.Join(dir, ".git", "objects", "pack", "multi-pack-index"))
	require.FileExists(t, filepath.Join(dir, ".git", "objects", "info", "commit-graph"))

	r, err := Open(dir)
	require.NoError(t, err)
	sameObjectsAsGit(t, dir, r)
	s := NewStore(r, RefMain, ScopeProject)
	addFacts(t, s, 2, "Loose fact %d: written after the maintenance.")
	ms, err := s.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 14)
	log, err := s.Log(context.Background(), 0)
	require.NoError(t, err)
	require.Len(t, log, 14)
	gittest.Run(t, dir, "commit-graph", "verify")

	gittest.Run(t, dir, "multi-pack-index", "repack", "--batch-size=0")
	gittest.Run(t, dir, "multi-pack-index", "expire")
	gittest.Run(t, dir, "prune-packed")
	r, err = Open(dir)
	require.NoError(t, err)
	sameObjectsAsGit(t, dir, r)
	ms, err = NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 14)
}

// TestRefsAsGitReadsThem: the refs and HEAD git-mem reads are git's, for
// loose refs, packed refs (with the peeled lines of annotated tags), a
// loose ref newer than its packed value, a deleted ref, a detached HEAD,
// and from a linked worktree, whose refs live in the common directory.
func TestRefsAsGitReadsThem(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	gittest.Run(t, dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "tag", "-a", "-m", "a tag", "v1")
	add(t, st, "a memory before the refs are packed")
	open := func(at string) *Repo {
		r, err := Open(at)
		require.NoError(t, err)
		return r
	}
	check := func(step string) {
		t.Run(step, func(t *testing.T) {
			sameRefsAsGit(t, dir, open(dir))
		})
	}
	check("loose")
	gittest.Run(t, dir, "pack-refs", "--all")
	packed, err := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	require.NoError(t, err)
	require.Contains(t, string(packed), "\n^", "a peeled line")
	check("packed")
	add(t, st, "a memory after: a loose ref newer than the packed one")
	check("loose over packed")
	gittest.Run(t, dir, "update-ref", "refs/memory/private", "refs/memory/main")
	gittest.Run(t, dir, "update-ref", "-d", "refs/memory/private")
	check("deleted")
	gittest.Run(t, dir, "checkout", "-q", "--detach")
	check("detached HEAD")
	gittest.Run(t, dir, "checkout", "-q", "main")

	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	add(t, NewStore(open(wt), RefMain, ScopeProject), "a memory written from the linked worktree")
	t.Run("linked worktree", func(t *testing.T) {
		sameRefsAsGit(t, wt, open(wt))
		sameRefsAsGit(t, dir, open(dir))
	})
}

// TestShallowAndPartialClones: a shallow clone of the memory reads its
// memories and the history it has; a blobless partial clone, whose memory
// documents git did not fetch, reads them as git does, fetched from its
// promisor remote, and reports them missing when that remote is gone.
func TestShallowAndPartialClones(t *testing.T) {
	src, st := projectStoreOnDisk(t)
	gittest.Run(t, src, "commit", "-q", "--allow-empty", "-m", "code")
	addFacts(t, st, 5, "Shared fact %d: cloned shallow and partial.")
	gittest.Run(t, src, "config", "uploadpack.allowFilter", "true")
	url := "file://" + src

	shallow := filepath.Join(t.TempDir(), "shallow")
	gittest.Run(t, filepath.Dir(shallow), "clone", "-q", "--depth=1", url, shallow)
	gitstoretest.CheckedByGit(t, shallow)
	gittest.Run(t, shallow, "fetch", "-q", "--depth=2", "origin", RefMain+":"+RefMain)
	r, err := Open(shallow)
	require.NoError(t, err)
	sameObjectsAsGit(t, shallow, r)
	s := NewStore(r, RefMain, ScopeProject)
	ms, err := s.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 5)
	log, err := s.Log(context.Background(), 0)
	require.NoError(t, err, "the history a shallow clone has")
	require.NotEmpty(t, log)
	addFacts(t, s, 1, "Fact %d written in the shallow clone.")

	// a blobless clone into which a plain git fetch brought the memory
	// (git mem share's refspec): git fetches each document when it is read
	partial := filepath.Join(t.TempDir(), "partial")
	gittest.Run(t, filepath.Dir(partial), "clone", "-q", "--filter=blob:none", "--no-checkout", url, partial)
	gitstoretest.CheckedByGit(t, partial)
	gittest.Run(t, partial, "fetch", "-q", "origin", RefMain+":"+RefMain)
	doc := strings.Fields(gittest.Run(t, partial, "ls-tree", "-r", "--format=%(objectname)", RefMain, "memories/"))[0]
	local := gitCmd(partial, "cat-file", "-e", doc)
	local.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1")
	require.Error(t, local.Run(), "the documents stayed on the remote")
	r, err = Open(partial)
	require.NoError(t, err)
	ms, err = NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 5)

	// with the promisor remote gone, the documents are missing, said once
	partial2 := filepath.Join(t.TempDir(), "partial2")
	gittest.Run(t, filepath.Dir(partial2), "clone", "-q", "--filter=blob:none", "--no-checkout", url, partial2)
	gitstoretest.CheckedByGit(t, partial2)
	gittest.Run(t, partial2, "fetch", "-q", "origin", RefMain+":"+RefMain)
	gittest.Run(t, partial2, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone"))
	r, err = Open(partial2)
	require.NoError(t, err)
	_, err = NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.ErrorIs(t, err, memerr.ErrCorrupt)
	var de *memerr.DamagedError
	require.ErrorAs(t, err, &de)
	require.True(t, de.Missing, "a document git could not fetch is missing: %v", err)
	require.True(t, r.lazyFetchFailed.Load())
}

// TestConfigAsGitReadsIt: the settings git-mem reads are those git config
// --get reads in the same directory: from the global file, the
// repository's, a worktree's own (extensions.worktreeConfig, in the main
// worktree and a linked one), and, for git-mem's own settings, an included
// file.
func TestConfigAsGitReadsIt(t *testing.T) {
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	require.NoError(t, os.WriteFile(global, []byte("[mem]\n\tagent = global-agent\n\tinjectChars = 100\n[gc]\n\tauto = 77\n[core]\n\tcompression = 3\n"), 0o644))
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := gitInit(t)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	keys := [][3]string{{"mem", "", "agent"}, {"mem", "", "injectChars"}, {"mem", "", "promptChars"}, {"mem", "embed", "url"}, {"gc", "", "auto"}, {"core", "", "compression"}, {"user", "", "name"}}
	same := func(t *testing.T, at string, memOnly bool) {
		t.Helper()
		r, err := Open(at)
		require.NoError(t, err)
		for _, k := range keys {
			if memOnly && k[0] != "mem" {
				continue
			}
			name := k[0] + "." + k[2]
			if k[1] != "" {
				name = k[0] + "." + k[1] + "." + k[2]
			}
			want, _ := gitOut(at, "config", "--get", name)
			require.Equal(t, want, r.Config().Get(k[0], k[1], k[2]), "%s in %s", name, at)
		}
	}
	for _, step := range []struct {
		name string
		do   func()
	}{
		{"global only", func() {}},
		{"repository", func() {
			gittest.Run(t, dir, "config", "mem.agent", "repo-agent")
			gittest.Run(t, dir, "config", "mem.embed.url", "http://127.0.0.1:9/v1")
		}},
		{"worktree config", func() {
			gittest.Run(t, dir, "config", "extensions.worktreeConfig", "true")
			gittest.Run(t, dir, "config", "--worktree", "mem.agent", "main-worktree-agent")
			gittest.Run(t, dir, "config", "--worktree", "gc.auto", "5")
			gittest.Run(t, wt, "config", "--worktree", "mem.agent", "side-worktree-agent")
			gittest.Run(t, wt, "config", "--worktree", "mem.promptChars", "321")
		}},
		{"include", func() {
			require.NoError(t, os.WriteFile(filepath.Join(home, "more.inc"), []byte("[mem]\n\tinjectChars = 999\n[user]\n\tname = Included Name\n"), 0o644))
			gittest.Run(t, dir, "config", "include.path", filepath.Join(home, "more.inc"))
		}},
	} {
		step.do()
		// through an include, only git-mem's own settings are read as git
		// reads them (the identity is asked of git apart, identity.go)
		memOnly := step.name == "include"
		t.Run(step.name, func(t *testing.T) {
			same(t, dir, memOnly)
			same(t, wt, memOnly)
		})
	}
}

// TestSyncInAPartialClone: a blobless partial clone (git clone
// --filter=blob:none) syncs the team's memory like a full clone: the fetch
// of the memory ref brings the documents its filter would leave on the
// remote, so the memory is read, merged and pushed, and git fsck is clean.
func TestSyncInAPartialClone(t *testing.T) {
	w := newRemoteWorld(t)
	w.git(w.remote, "config", "uploadpack.allowFilter", "true")
	_, ann := w.clone("Ann")
	w.addN(ann, "claude-code", 3, "Ann's")
	w.sync(ann)

	dir := filepath.Join(w.root, "Bob")
	w.git(w.root, "clone", "-q", "--filter=blob:none", "file://"+w.remote, dir)
	gitstoretest.CheckedByGit(t, dir)
	w.git(dir, "config", "user.name", "Bob")
	w.git(dir, "config", "user.email", "bob@example.com")
	bob := w.open(dir)
	w.addN(bob, "codex", 2, "Bob's")
	w.sync(bob)
	ms, err := NewStore(w.open(dir), RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 5)

	w.addN(ann, "claude-code", 1, "Ann's later")
	w.sync(ann)
	w.sync(bob)
	ms, err = NewStore(w.open(dir), RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 6)
	require.Equal(t, w.texts(w.remote), w.texts(dir))
}

// resolveRef returns the commit a ref points to, zero when the ref does not exist.
func (r *Repo) resolveRef(name string) (Hash, error) { return r.refs.read(name) }
