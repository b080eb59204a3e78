package gitstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeFetched: what a plain git fetch brought is merged once, purged
// ids left out; with nothing new, nothing is merged and git is not asked.
func TestMergeFetched(t *testing.T) {
	w := newRemoteWorld(t)
	_, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	ctx := context.Background()
	_, err := b.ShareRefspec(ctx, w.origin(b))
	require.NoError(t, err)

	res, err := b.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	require.Empty(t, res, "nothing fetched")

	s := NewStore(a, RefMain, ScopeProject)
	x, err := s.Add(ctx, Writer{}, NewMemory{Text: "saved by mistake: internal hostname list"})
	require.NoError(t, err)
	w.addN(a, "a", 2, "keep")
	w.sync(a)
	w.git(dirB, "config", "--add", "mem.purged", x.ID) // purged on Bob's side already
	w.addN(b, "b", 1, "bob")
	w.git(dirB, "fetch", "-q")

	pending, err := b.FetchedPending(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	res, err = b.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, mergeCommitted, res[0].Merge.Kind)
	require.True(t, res[0].Rewritten, "the fetched history held the purged memory")
	texts := w.texts(dirB)
	require.Len(t, texts, 3)
	require.NotContains(t, texts, x.Text)
	require.NotContains(t, w.git(dirB, "log", "--all", "--format=%B", "-p"), "internal hostname list",
		"fetched history holding a purged memory never becomes a parent")

	res, err = b.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	require.Empty(t, res, "merged once")
	w.addN(b, "b", 3, "more") // local writes on top: the tracking tip is a recent ancestor
	pending, err = b.FetchedPending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)
}

// TestMergeFetchedHonoursTombstones: after a purge travelled to the remote,
// a teammate's plain git fetch followed by any command (MergeFetched) purges
// the memory in their clone too, as git mem pull does; and the purger's own
// plain fetch of the remote's old history never brings the text back.
func TestMergeFetchedHonoursTombstones(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	ctx := context.Background()
	for _, r := range []*Repo{a, b} {
		_, err := r.ShareRefspec(ctx, w.origin(r))
		require.NoError(t, err)
	}
	x, err := NewStore(a, RefMain, ScopeProject).Add(ctx, Writer{}, NewMemory{Text: "saved by mistake: vault token kiwi-narwhal"})
	require.NoError(t, err)
	w.addN(a, "a", 2, "keep")
	w.sync(a)
	w.sync(b)

	rep, err := a.Purge(ctx, x.ID)
	require.NoError(t, err)
	w.addN(a, "a", 1, "after") // the purger writes on; the remote still holds the old history
	w.git(dirA, "fetch", "-q")
	res, err := a.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	for _, p := range res {
		require.True(t, p.Rewritten)
	}
	leaks, err := a.ReachableLeaks(ctx, rep.Texts)
	require.NoError(t, err)
	require.Empty(t, leaks, "the purger's plain fetch never makes the text reachable again")

	w.sync(a) // replaces the remote's history, tombstone included
	w.git(dirB, "fetch", "-q")
	res, err = b.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, []string{x.ID}, res[0].TeammatePurged)
	leaks, err = b.ReachableLeaks(ctx, rep.Texts)
	require.NoError(t, err)
	require.Empty(t, leaks, "the teammate's clone no longer reaches the text")
	require.NotContains(t, w.texts(dirB), x.Text)
	w.fsck(dirA, dirB, w.remote)
}

// BenchmarkFetchedPendingNothingNew is the cost every command and hook pays
// when nothing new was fetched: the tracking ref is a few commits behind
// refs/memory/main.
func BenchmarkFetchedPendingNothingNew(b *testing.B) {
	w := newRemoteWorld(b)
	_, a := w.clone("Ann")
	w.addN(a, "a", 5, "x")
	w.sync(a)
	w.addN(a, "a", 5, "local")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := a.FetchedPending(ctx)
		if err != nil || len(p) != 0 {
			b.Fatal(err, p)
		}
	}
}
