package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/gittest"
)

// addFacts adds n memories to s and returns their ids.
func addFacts(t *testing.T, s *Store, n int, format string) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		m, err := s.Add(context.Background(), Writer{Agent: "test"}, NewMemory{Type: TypeFact, Text: fmt.Sprintf(format, i), Source: SourceUser})
		require.NoError(t, err)
		ids = append(ids, m.ID)
	}
	return ids
}

// TestLooseObjectsAsGitWrites: an object written loose is a read-only file
// named by its hash in its fan-out directory, which git reads and fsck
// accepts, and no temporary file is left beside it.
func TestLooseObjectsAsGitWrites(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	addFacts(t, st, 5, "Loose fact %d: the export runs nightly.")
	count := gittest.Run(t, dir, "count-objects", "-v")
	require.Contains(t, count, "count: 25\n", "a blob, a fan-out tree, the memories tree, the root and a commit per add")
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
	files := looseFiles(t, dir)
	require.Len(t, files, 25)
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o444), st.Mode().Perm(), f)
		require.False(t, strings.HasPrefix(filepath.Base(f), "tmp_"), "no temporary file left: %s", f)
		hash := filepath.Base(filepath.Dir(f)) + filepath.Base(f)
		require.Contains(t, []string{"blob\n", "tree\n", "commit\n"}, gittest.Run(t, dir, "cat-file", "-t", hash))
	}
}

// looseFiles lists the loose object files of the repository at dir.
func looseFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
	require.NoError(t, err)
	return files
}

// TestLooseCompression: loose objects are compressed at the level git
// would write them at (core.looseCompression, else core.compression, else
// the fastest), which the zlib header of each object file records.
func TestLooseCompression(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]string
		flevel byte // zlib's FLEVEL: 0 fastest, 1 fast, 2 default, 3 smallest
	}{
		{"unset", nil, 0},
		{"core.compression", map[string]string{"core.compression": "9"}, 3},
		{"core.looseCompression first", map[string]string{"core.compression": "9", "core.looseCompression": "3"}, 1},
		{"zlib's default", map[string]string{"core.looseCompression": "-1"}, 2},
		{"out of range", map[string]string{"core.looseCompression": "12"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitInit(t)
			for k, v := range tt.config {
				gittest.Run(t, dir, "config", k, v)
			}
			repo, err := Open(dir)
			require.NoError(t, err)
			addFacts(t, NewStore(repo, RefMain, ScopeProject), 2, "Compressed fact %d: the ledger closes at midnight and the export follows it.")
			files := looseFiles(t, dir)
			require.Len(t, files, 10)
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				require.Equal(t, tt.flevel, data[1]>>6, f)
			}
			for k := range tt.config { // git itself refuses to run with a level out of range
				gittest.Run(t, dir, "config", "--unset", k)
			}
			gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

// TestObjectsInAlternates: a clone made with --shared holds no objects of
// its own; its memories are read through objects/info/alternates, and
// what it writes lands in its own objects directory.
func TestObjectsInAlternates(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			dir, st := projectStoreOnDisk(t)
			addFacts(t, st, 12, "Shared fact %d: the ledger closes at midnight.")
			if packed {
				gittest.Run(t, dir, "gc", "-q", "--prune=now")
			}
			clone := filepath.Join(t.TempDir(), "clone")
			gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
			gittest.Run(t, filepath.Dir(clone), "clone", "-q", "--shared", dir, clone)
			gitstoretest.CheckedByGit(t, clone)
			gittest.Run(t, clone, "fetch", "-q", "origin", RefMain+":"+RefMain)
			require.Contains(t, gittest.Run(t, clone, "count-objects", "-v"), "count: 0\n", "the clone has no objects of its own")
			r, err := Open(clone)
			require.NoError(t, err)
			cs := NewStore(r, RefMain, ScopeProject)
			ms, err := cs.List(Filter{})
			require.NoError(t, err)
			require.Len(t, ms, 12)
			addFacts(t, cs, 1, "Clone fact %d: written in the clone.")
			require.Contains(t, gittest.Run(t, clone, "count-objects", "-v"), "count: 5\n")
			gittest.Run(t, clone, "fsck", "--strict", "--no-dangling")
			ms, err = cs.List(Filter{})
			require.NoError(t, err)
			require.Len(t, ms, 13)
		})
	}
}

// TestPackIndexVersion1: a pack indexed in git's first index format (as
// git before 1.5.2 wrote it) is read like any other.
func TestPackIndexVersion1(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	addFacts(t, st, 20, "Old fact %d: indexed the old way.")
	gittest.Run(t, dir, "gc", "-q", "--prune=now")
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	pack := mustGlobOne(t, filepath.Join(packDir, "*.pack"))
	idx := filepath.Join(packDir, strings.TrimSuffix(pack, ".pack")+".idx")
	require.NoError(t, os.Remove(idx))
	gittest.Run(t, dir, "index-pack", "--index-version=1", "-o", idx, filepath.Join(packDir, pack))
	head, err := os.ReadFile(idx)
	require.NoError(t, err)
	require.NotEqual(t, []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, head[:8], "a version 1 index")

	all := catFileAll(t, dir)
	db := gitobj.OpenDiskWithAlternates(filepath.Join(dir, ".git", "objects"), 1, nil)
	defer db.Close()
	for h, want := range all {
		got, err := db.Read(h)
		require.NoError(t, err, h.String())
		require.Equal(t, want.Type, got.Type, h.String())
		require.Equal(t, want.Data, got.Data, h.String())
	}
	r, err := Open(dir)
	require.NoError(t, err)
	ms, err := NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 20)
}

// TestManyPacks: a store spread over many packs is read whole, and every
// object as git reads it (internal/gitobj's TestManyPacks: past the
// number of packs the reader keeps open).
func TestManyPacks(t *testing.T) {
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 5; i++ {
		addFacts(t, st, 3, fmt.Sprintf("Pack %d fact %%d: one pack each.", i))
		gittest.Run(t, dir, "repack", "-q", "-d")
	}
	packs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	require.NoError(t, err)
	require.Len(t, packs, 5)
	r, err := Open(dir)
	require.NoError(t, err)
	ms, err := NewStore(r, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 15)
	sameObjectsAsGit(t, dir, r)
}

// TestWriteFreshensAnObjectThere: writing an object already there loose
// writes nothing and gives it a new modification time, as git does, so
// that a prune of old unreachable objects running meanwhile leaves it for
// the commit about to name it.
func TestWriteFreshensAnObjectThere(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	h, err := r.writeBlob([]byte("an old orphan\n"))
	require.NoError(t, err)
	path := filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:])
	old := time.Now().Add(-30 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	file, err := os.Stat(path)
	require.NoError(t, err)

	again, err := r.writeBlob([]byte("an old orphan\n"))
	require.NoError(t, err)
	require.Equal(t, h, again)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), st.ModTime(), time.Minute)
	require.True(t, os.SameFile(file, st), "the file is kept, not written again")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, "an old orphan\n", gittest.Run(t, dir, "cat-file", "-p", h.String()))
}

// TestObjectReaderBound: the object reader inflates documents up to 64
// times the largest valid one, so that an oversized document is known by
// its size and skipped as invalid, never read as a damaged store.
func TestObjectReaderBound(t *testing.T) {
	require.Equal(t, 64*maxDocumentBytes, gitobj.MaxObjectBytes)
}
