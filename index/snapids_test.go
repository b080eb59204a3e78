package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestShortIDsFromTheSnapshot: the display ids read from the recall
// snapshot's keys are the ones the store's trees give, for every memory,
// with the snapshot missing, current as a base, current with a delta that
// adds, changes and forgets memories, and behind the store; and the
// snapshot's neighbours of an id are the live ones of its scope.
func TestShortIDsFromTheSnapshot(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	private, err := r.set.Writable(gitstore.ScopePrivate)
	require.NoError(t, err)
	var all []string
	put := func(st *gitstore.Store, ids ...string) {
		t.Helper()
		_, err := st.Update(ctx, gitstore.Writer{}, func(tx *gitstore.Tx) error {
			for _, id := range ids {
				tx.Put(&gitstore.Memory{ID: id, Type: gitstore.TypeFact, Text: "Deploy note " + id, Source: gitstore.SourceUser, Trust: 0.9, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
			}
			tx.Describe(gitstore.OpAdd, "seed", ids...)
			return nil
		})
		require.NoError(t, err)
		all = append(all, ids...)
	}
	// ids sharing up to fifteen digits, in both stores
	for i := range 40 {
		put(r.main, fmt.Sprintf("3f2a9c00000000%02x", i*5), fmt.Sprintf("77aa%012x", i*977))
	}
	put(private, "3f2a9c0000000003", "3f2a9c00000000a1", "88bb000000000000")
	// each id asked alone: its display id must be unique in the stores,
	// not only among the ids asked
	check := func(state string) {
		t.Helper()
		for _, id := range all {
			fromTrees, err := r.set.ShortIDs([]string{id})
			require.NoError(t, err)
			require.Equal(t, fromTrees, ShortIDs(r.set, []Hit{{Memory: &gitstore.Memory{ID: id}}}), "%s: %s", state, id)
		}
	}
	check("no snapshot")

	_, err = Rebuild(ctx, r.set, nil)
	require.NoError(t, err)
	check("a current base")

	// a delta: added, changed (same key) and forgotten memories
	put(r.main, "3f2a9c0000000002", "77aa000000000001")
	_, err = r.main.Revise(ctx, gitstore.Writer{}, "3f2a9c0000000005", "Deploy note, revised")
	require.NoError(t, err)
	_, err = r.main.Forget(ctx, gitstore.Writer{}, "3f2a9c000000000a")
	require.NoError(t, err)
	all = deleteID(all, "3f2a9c000000000a")
	r.recall("deploy note") // brings the snapshot forward
	v, err := openView(SnapshotPath(r.set), false)
	require.NoError(t, err)
	require.NotEmpty(t, v.added, "the snapshot has a delta")
	tips, err := Tips(r.set.Stores())
	require.NoError(t, err)
	require.True(t, SameTips(v.tips, tips), "and is current")
	for _, tc := range []struct {
		scope gitstore.Scope
		id    string
		want  []string
	}{
		{gitstore.ScopeProject, "3f2a9c0000000005", []string{"3f2a9c0000000002", "3f2a9c000000000f"}}, // the forgotten ...0a is not a neighbour
		{gitstore.ScopeProject, "3f2a9c0000000000", []string{"3f2a9c0000000002"}},                     // the first of its scope
		{gitstore.ScopeProject, "77aa000000000000", []string{"3f2a9c00000000c3", "77aa000000000001"}},
		{gitstore.ScopePrivate, "3f2a9c0000000003", []string{"3f2a9c00000000a1"}},
		{gitstore.ScopePrivate, "88bb000000000000", []string{"3f2a9c00000000a1"}},
	} {
		got, err := v.near(tc.scope, tc.id, newBaseKeys(v))
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%s %s", tc.scope, tc.id)
	}
	v.close()
	check("a current base with a delta")

	put(r.main, "3f2a9c0000000001")
	check("a snapshot behind the store")
}

func deleteID(ids []string, id string) []string {
	var out []string
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}
