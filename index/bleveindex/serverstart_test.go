package bleveindex

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/index"
)

// TestRecallWhileTheServerRebuildsItsIndex: git mem reindex (git-mem links
// no engine) rebuilds the snapshot and removes this index; the MCP server
// rebuilds it in the background when it starts (index.SyncIndex), and its
// recalls meanwhile find it busy and answer from the snapshot, the same.
func TestRecallWhileTheServerRebuildsItsIndex(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	want := answersFromIndex(t, r)
	dir := index.Dir(r.Set)

	// git mem reindex, as git-mem runs it
	var n int
	var err error
	withoutEngine(func() { n, err = index.Rebuild(context.Background(), r.Set, nil) })
	require.NoError(t, err)
	require.Positive(t, n)
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "the engine's index is removed: %v", err)
	_, err = os.Stat(index.SnapshotPath(r.Set))
	require.NoError(t, err)

	// the server's background build holds the index while it runs
	unlock, err := lockSync(dir, 0)
	require.NoError(t, err)
	for _, q := range seedQueries {
		res := r.recall(q)
		require.Equal(t, "snapshot", res.Source, q)
		require.Contains(t, res.Fallback, "busy")
		require.Equal(t, want[q], ids(res), q)
	}
	unlock()

	rebuilt, err := index.SyncIndex(context.Background(), r.Set, nil)
	require.NoError(t, err)
	require.True(t, rebuilt)
	rebuilt, err = index.SyncIndex(context.Background(), r.Set, nil)
	require.NoError(t, err)
	require.False(t, rebuilt, "an index up to date is left as is")
	for _, q := range seedQueries {
		res := r.recall(q)
		require.Equal(t, "index", res.Source, q)
		require.False(t, res.Rebuilt)
		require.Equal(t, want[q], ids(res), q)
	}
}
