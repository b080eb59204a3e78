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
	require.Equal(t, MergeCommitted, res[0].Merge.Kind)
	require.Equal(t, []string{x.ID}, res[0].Merge.Dropped)
	texts := w.texts(dirB)
	require.Len(t, texts, 3)
	require.NotContains(t, texts, x.Text)

	res, err = b.MergeFetched(ctx, Writer{Agent: "cli"})
	require.NoError(t, err)
	require.Empty(t, res, "merged once")
	w.addN(b, "b", 3, "more") // local writes on top: the tracking tip is a recent ancestor
	pending, err = b.FetchedPending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)
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
