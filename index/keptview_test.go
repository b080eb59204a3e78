package index

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestKeptView: writes with Access.KeepViews keep their view of the snapshot
// for the next one, without the documents a call loaded; a write by
// another process, or by a write that does not keep views, makes the next
// write read the files afresh, and it sees what that write saved.
func TestKeptView(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("views are not kept on Windows")
	}
	r, path := snapshotRepo(t)
	kept := keptViewOf(t, path)
	keep := Access{KeepViews: true}
	w := gitstore.Writer{Agent: "test"}
	remember := func(acc Access, text string) *Outcome {
		t.Helper()
		oc, err := acc.Remember(context.Background(), r.set, r.main, w, gitstore.NewMemory{Type: gitstore.TypeFact, Text: text})
		require.NoError(t, err)
		return oc
	}

	remember(keep, "The payroll export runs at 02:00 UTC on the batch host.")
	first := kept()
	require.NotNil(t, first, "a write with KeepViews keeps its view")
	require.Zero(t, first.base.Loaded(), "without the documents the call loaded")

	oc := remember(keep, "The API is deployed to Fly.io from the release branch by GitHub Actions.")
	require.NotNil(t, oc.PossibleDuplicateOf, "the duplicate check loaded a memory of the base")
	require.Same(t, first, kept(), "the next write brings the kept view forward and keeps it")
	require.Zero(t, first.base.Loaded(), "without the documents that write loaded")

	other := "Feature flags are read from the flags service at start-up."
	remember(Access{}, other) // as another process would
	require.Same(t, first, kept(), "a write that does not keep views leaves the kept one")
	require.Nil(t, takeKeptView(keep, path), "but a view the files no longer match is not taken")
	require.Nil(t, kept(), "and is closed")
	remember(keep, "Release builds are signed on the build host only.")
	require.NotNil(t, kept())
	require.NotSame(t, first, kept(), "the files were read afresh")

	second := kept()
	remember(Access{}, "Invoice numbers are allocated per tenant, never globally.")
	DropStaleView(r.set)
	require.Nil(t, kept(), "a call checks the kept view against the files")
	oc = remember(keep, "Invoice numbers are allocated per tenant, never globally.")
	require.True(t, oc.Reinforced, "the write sees the memory the other one saved")
	require.NotSame(t, second, kept())

	_, err := Rebuild(context.Background(), r.set, nil) // as a purge's scrub does
	require.NoError(t, err)
	require.Nil(t, kept(), "a rebuild closes the kept view of the old file")
}

// TestRecallKeepsItsViewForDisplayIDs: a recall with Access.KeepViews keeps
// the view it read, and the display ids of its hits read that view (kept
// again after), giving the ids the stores' trees give; without KeepViews
// nothing is kept.
func TestRecallKeepsItsViewForDisplayIDs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("views are not kept on Windows")
	}
	r, path := snapshotRepo(t)
	kept := keptViewOf(t, path)
	require.Nil(t, kept())
	res := r.recall("deploy", func(o *Options) { o.Access = Access{} })
	require.NotEmpty(t, res.Hits)
	require.Nil(t, kept(), "a recall without KeepViews keeps nothing")

	keep := Access{KeepViews: true}
	res = r.recall("deploy", func(o *Options) { o.Access = keep })
	v := kept()
	require.NotNil(t, v, "a recall with KeepViews keeps its view")
	short := keep.ShortIDs(r.set, res.Hits)
	require.Same(t, v, kept(), "the display ids read it, and it is kept again")
	want, err := r.set.ShortIDs(ids(res))
	require.NoError(t, err)
	require.Equal(t, want, short)
}

// keptViewOf is the process's kept view of the snapshot at path (nil when
// it keeps none of it), closed when the test ends.
func keptViewOf(t *testing.T, path string) func() *snapView {
	t.Cleanup(func() {
		if v := takeKeptView(Access{KeepViews: true}, path); v != nil {
			v.close()
		}
	})
	return func() *snapView {
		keptView.mu.Lock()
		defer keptView.mu.Unlock()
		if keptView.path != path {
			return nil
		}
		return keptView.v
	}
}
