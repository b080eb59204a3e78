package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/gittest"
)

// catFileAll is every object of the repository in dir as git itself reads
// it: hash -> type and content.
func catFileAll(t *testing.T, dir string) map[Hash]*gitobj.Object {
	t.Helper()
	types := map[string]gitobj.ObjectType{"commit": gitobj.CommitObject, "tree": gitobj.TreeObject, "blob": gitobj.BlobObject, "tag": 4}
	all := map[Hash]*gitobj.Object{}
	for id, o := range gittest.CatFileAll(t, dir) {
		h, ok := parseHash(id)
		require.True(t, ok, id)
		all[h] = &gitobj.Object{Type: types[o.Type], Data: o.Data}
	}
	return all
}

// TestPackReaderReadsWhatGitReads: after git packs a store of memories
// that were revised many times (so that its trees and blobs are deltas,
// against an offset and, with repack.useDeltaBaseOffset off, against a
// hash), every object the object database finds is the one git cat-file
// shows, it finds every packed object, and the store reads every memory.
func TestPackReaderReadsWhatGitReads(t *testing.T) {
	for _, ofs := range []string{"true", "false"} {
		t.Run("useDeltaBaseOffset="+ofs, func(t *testing.T) {
			ctx, w := context.Background(), Writer{Agent: "test"}
			dir, st := projectStoreOnDisk(t)
			var ids []string
			for i := 0; i < 60; i++ {
				m, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Fact %d: the nightly export of region %d runs at %02d:00 UTC and writes to bucket exports-%d.", i, i%7, i%24, i), Source: SourceUser})
				require.NoError(t, err)
				ids = append(ids, m.ID)
			}
			for i, id := range ids[:30] {
				_, err := st.Revise(ctx, w, id, fmt.Sprintf("Fact %d, revised: the nightly export of region %d runs at %02d:30 UTC and writes to bucket exports-%d-v2.", i, i%7, i%24, i))
				require.NoError(t, err)
			}
			gittest.Run(t, dir, "-c", "repack.useDeltaBaseOffset="+ofs, "gc", "-q", "--aggressive", "--prune=now")
			loose, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
			require.Empty(t, loose, "git gc packed everything")
			verify := gittest.Run(t, dir, "verify-pack", "-v", filepath.Join(dir, ".git", "objects", "pack", mustGlobOne(t, filepath.Join(dir, ".git", "objects", "pack", "*.idx"))))
			require.Contains(t, verify, "chain length", "the pack holds deltas")

			all := catFileAll(t, dir)
			require.Greater(t, len(all), 200)
			db := gitobj.OpenDiskWithAlternates(filepath.Join(dir, ".git", "objects"), 1, nil)
			defer db.Close()
			for h, want := range all {
				got, err := db.Read(h)
				require.NoError(t, err, h.String())
				require.Equal(t, want.Type, got.Type, h.String())
				require.True(t, bytes.Equal(want.Data, got.Data), h.String())
			}
			_, err := db.Read(Hash{1, 2, 3})
			require.ErrorIs(t, err, gitobj.ErrNotFound)

			// and the store reads through it: every memory, as before the gc
			repo2, err := Open(dir)
			require.NoError(t, err)
			ms, err := NewStore(repo2, RefMain, ScopeProject).List(Filter{})
			require.NoError(t, err)
			require.Len(t, ms, 60)
		})
	}
}

func mustGlobOne(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.Len(t, m, 1)
	return filepath.Base(m[0])
}

// TestPackReaderAfterNewLooseObjects: objects written loose after the
// reader listed their directories are still read (loose, once the packs do
// not hold them), and so are objects packed after it listed the packs.
func TestPackReaderAfterNewLooseObjects(t *testing.T) {
	ctx, w := context.Background(), Writer{Agent: "test"}
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 40; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Packed fact %d about the ledger.", i), Source: SourceUser})
		require.NoError(t, err)
	}
	gittest.Run(t, dir, "gc", "-q", "--prune=now")
	repo, err := Open(dir)
	require.NoError(t, err)
	st = NewStore(repo, RefMain, ScopeProject)
	ms, err := st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 40, "read from the pack; every loose directory listed (empty)")
	for i := 0; i < 40; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Loose fact %d about the invoices.", i), Source: SourceUser})
		require.NoError(t, err)
	}
	ms, err = st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 80, "the new loose objects are read although their directories were listed empty")
	gittest.Run(t, dir, "gc", "-q", "--prune=now")
	ms, err = st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 80, "objects packed and pruned since are read")
}

// projectStoreOnDisk is the project store of a new repository made by git.
func projectStoreOnDisk(t *testing.T) (string, *Store) {
	t.Helper()
	dir := gitInit(t)
	repo, err := Open(dir)
	require.NoError(t, err)
	return dir, NewStore(repo, RefMain, ScopeProject)
}
