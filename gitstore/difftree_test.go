package gitstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// In a store whose packs are large, Diff asks git diff-tree, and gets what
// comparing the trees gives: changed and added ids, removed ids.
func TestDiffAsksGitInALargeStore(t *testing.T) {
	orig := largePackIndex
	t.Cleanup(func() { largePackIndex = orig })
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	ctx := context.Background()
	a := add(t, s, "one")
	b := add(t, s, "two")
	add(t, s, "three")
	from, err := s.Tip()
	require.NoError(t, err)
	_, err = s.Revise(ctx, Writer{}, a.ID, "one, revised")
	require.NoError(t, err)
	_, err = s.Forget(ctx, Writer{}, b.ID)
	require.NoError(t, err)
	d := add(t, s, "four")
	to, err := s.Tip()
	require.NoError(t, err)
	runGit(t, dir, "repack", "-adq")
	require.Positive(t, r.packIndexBytes())

	changed, removed, ok := s.gitDiff(from, to)
	require.True(t, ok)
	require.ElementsMatch(t, []string{a.ID, d.ID}, changed)
	require.Equal(t, []string{b.ID}, removed)

	for _, limit := range []int64{1, 1 << 62} { // git, then go-git
		largePackIndex = limit
		changed, removed, err := s.Diff(from, to)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{a.ID, d.ID}, changed, "limit %d", limit)
		require.Equal(t, []string{b.ID}, removed, "limit %d", limit)
	}

	// a zero side is compared by go-git (git has no empty commit to name)
	largePackIndex = 1
	changed, _, err = s.Diff(Hash{}, to)
	require.NoError(t, err)
	require.Len(t, changed, 3)
}
