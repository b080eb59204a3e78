package gitstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/gitobj"
)

// TestTreeCache: a tree written is read back from the cache as written,
// whatever its writer does with its slice afterwards; a tree the cache
// does not hold is read from the object database; past its bound the
// cache starts over.
func TestTreeCache(t *testing.T) {
	r := NewMemoryRepo()
	blob, err := r.writeBlob([]byte("{}"))
	require.NoError(t, err)
	entries := func(n int, tag string) []treeEntry {
		out := make([]treeEntry, n)
		for i := range out {
			out[i] = treeEntry{Name: fmt.Sprintf("%s%05d.json", tag, i), Mode: gitobj.ModeRegular, Hash: blob}
		}
		return out
	}
	written := entries(300, "a")
	h, err := r.writeTree(written)
	require.NoError(t, err)
	want := append([]treeEntry(nil), written...)
	written[0].Name = "changed.json" // the writer's slice is its own
	objects := r.objects
	r.objects = gitobj.NewMemDB() // from the cache, not the objects
	got, err := r.readTree(h)
	require.NoError(t, err)
	require.Equal(t, want, got.Entries)
	r.objects = objects

	// read from the objects once the cache is emptied, and kept again
	r.trees = &treeCache{}
	got, err = r.readTree(h)
	require.NoError(t, err)
	require.Equal(t, want, got.Entries)
	require.Same(t, got, r.trees.get(h))

	// past the bound the cache starts over
	for i := 0; r.trees.entries+300 <= maxCachedTreeEntries; i++ {
		_, err := r.writeTree(entries(300, fmt.Sprintf("b%d-", i)))
		require.NoError(t, err)
	}
	require.NotNil(t, r.trees.get(h))
	h2, err := r.writeTree(entries(300, "c"))
	require.NoError(t, err)
	require.Nil(t, r.trees.get(h), "started over")
	require.NotNil(t, r.trees.get(h2))
	require.LessOrEqual(t, r.trees.entries, maxCachedTreeEntries)
}

// TestTreeCacheKeepsAWritesTrees: the trees a store's write makes (root,
// memories, fan-out) are read back from the cache, not the objects.
func TestTreeCacheKeepsAWritesTrees(t *testing.T) {
	r := NewMemoryRepo()
	m, err := NewStore(r, RefMain, ScopeProject).Add(context.Background(), Writer{Agent: "cli"}, NewMemory{Type: TypeFact, Text: "the ledger stores amounts in cents"})
	require.NoError(t, err)
	requireTipTreesCached(t, r, m.ID)
}

// requireTipTreesCached checks that r's cache alone answers for the trees
// of its main ref's tip down to the memory id.
func requireTipTreesCached(t *testing.T, r *Repo, id string) {
	t.Helper()
	tip, err := r.resolveRef(RefMain)
	require.NoError(t, err)
	c, err := r.readCommit(tip)
	require.NoError(t, err)
	r.objects = gitobj.NewMemDB() // only the cache can answer
	root, err := r.readTree(Hash(c.TreeHash))
	require.NoError(t, err)
	mems, err := r.readTree(Hash(findEntry(root, memoriesDir).Hash))
	require.NoError(t, err)
	fan, err := r.readTree(Hash(findEntry(mems, fanout(id)).Hash))
	require.NoError(t, err)
	require.NotNil(t, findEntry(fan, blobName(id)))
}

// TestTreeCacheSharedByReopenedRepositories: a repository opened again on
// the same object directory (the MCP server opens one per call) reads the
// trees an earlier opening wrote from the cache; another directory has a
// cache of its own.
func TestTreeCacheSharedByReopenedRepositories(t *testing.T) {
	dir := gitInit(t)
	first, err := Open(dir)
	require.NoError(t, err)
	m, err := NewStore(first, RefMain, ScopeProject).Add(context.Background(), Writer{Agent: "cli"}, NewMemory{Type: TypeFact, Text: "the ledger stores amounts in cents"})
	require.NoError(t, err)

	again, err := Open(dir)
	require.NoError(t, err)
	require.Same(t, first.trees, again.trees)
	requireTipTreesCached(t, again, m.ID)

	other, err := Open(gitInit(t))
	require.NoError(t, err)
	require.NotSame(t, first.trees, other.trees)
}
