//go:build unix

package index

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// mapped is a recall that reads the snapshot through memory maps
// (Access.Map), as a hook process does.
func mapped(o *Options) { o.Access.Map = true }

// TestMappedSnapshotReadsLikeAFile: recall from a mapped snapshot returns
// what it returns from the file read in parts, with the same scores (the
// map itself is index/snapshot's to test).
func TestMappedSnapshotReadsLikeAFile(t *testing.T) {
	r, _ := snapshotRepo(t)
	ctx := context.Background()
	r.add("The zeppelin hangar doors stick in cold weather; oil the rails first.")
	_, err := Rebuild(ctx, r.set, nil) // in the base, not the delta
	require.NoError(t, err)
	queries := []string{"zeppelin hangar doors", "deploy api fly.io", "how do payments reach stripe", "nothing about anything here"}
	read := map[string]*Result{}
	for _, q := range queries {
		read[q] = r.recall(q)
	}

	for _, q := range queries {
		got := r.recall(q, mapped)
		require.Equal(t, "snapshot", got.Source, got.Fallback)
		require.Equal(t, ids(read[q]), ids(got), q)
		for i := range got.Hits {
			require.InDelta(t, read[q].Hits[i].Score, got.Hits[i].Score, 1e-12)
			require.InDelta(t, read[q].Hits[i].Confidence, got.Hits[i].Confidence, 1e-12)
		}
	}

}

// TestMapFaultIsAnError: the duplicate check's count over a mapped snapshot
// that another program truncated under it, run under snapshot.FaultsAsErrors (as
// similarInSnapshot and refreshFrom run their reads), is an ErrSnapshot
// error where the process would die of SIGBUS; a panic that is no fault
// still panics. The truncation cannot be timed inside those two, which open
// the file themselves and would find it short before mapping it.
func TestMapFaultIsAnError(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	genStore(t, r.main, 2000, 7) // a dictionary and postings of many pages
	require.NoError(t, Refresh(context.Background(), r.set))
	path := SnapshotPath(r.set)
	v, err := openView(path, true)
	require.NoError(t, err)
	defer v.close()
	require.True(t, v.base.Mapped(), "opened through a map")
	require.NoError(t, os.Truncate(path, snapshot.HeaderSize)) // under the map: what it read stays

	err = snapshot.FaultsAsErrors(func() error {
		_, _, ok := similarIn(v, gitstore.ScopeProject, gitstore.TypeFact, "We deploy the API to Fly.io with fly deploy", time.Now())
		require.Fail(t, "read a truncated map", "ok: %v", ok)
		return nil
	})
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorIs(t, err, snapshot.ErrMapFault)
	require.PanicsWithValue(t, "no fault", func() {
		_ = snapshot.FaultsAsErrors(func() error { panic("no fault") })
	})
}
