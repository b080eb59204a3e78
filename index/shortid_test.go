package index

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestShownIDsAreUniqueInTheStore: the short ids a listing (Catalog.Newest)
// and a recall's output (ShortIDs) show are extended past a
// superseded memory and a memory not among the hits that share their first
// digits, so that git mem show (Set.Find) resolves each; among the hits
// alone (ShortIDs) they would not be.
func TestShownIDsAreUniqueInTheStore(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	past := r.now.Add(-time.Hour)
	for _, d := range []struct {
		id      string
		retired bool
	}{
		{"3f2a9c0000000001", false},
		{"3f2a9c7700000002", true}, // superseded: in the tree, not in the listing
		{"77aa000000000001", false},
		{"77aa00ff00000002", false}, // current, not among the hits below
	} {
		_, err := r.main.Update(ctx, gitstore.Writer{}, func(tx *gitstore.Tx) error {
			m := &gitstore.Memory{ID: d.id, Type: gitstore.TypeFact, Text: "Deploy note " + d.id, Source: gitstore.SourceUser, Trust: 0.9, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()}
			if d.retired {
				m.ValidTo = &past
			}
			tx.Put(m)
			tx.Describe(gitstore.OpAdd, "seed", d.id)
			return nil
		})
		require.NoError(t, err)
	}
	c, err := Access{}.OpenCatalog(ctx, r.set)
	require.NoError(t, err)
	defer c.Close()
	shown, _, short, err := c.Newest(10, "", false, r.now)
	require.NoError(t, err)
	require.Len(t, shown, 3)
	require.Equal(t, "3f2a9c0", short["3f2a9c0000000001"])

	rd, err := r.main.Read()
	require.NoError(t, err)
	var hits []Hit
	for _, id := range []string{"3f2a9c0000000001", "77aa000000000001"} {
		m, err := rd.Get(id)
		require.NoError(t, err)
		hits = append(hits, Hit{Memory: m, Scope: gitstore.ScopeProject})
	}
	require.Equal(t, map[string]string{"3f2a9c0000000001": "3f2a9c", "77aa000000000001": "77aa00"}, gitstore.ShortIDs([]string{"3f2a9c0000000001", "77aa000000000001"}), "among the hits alone")
	stored := ShortIDs(r.set, hits)
	require.Equal(t, map[string]string{"3f2a9c0000000001": "3f2a9c0", "77aa000000000001": "77aa000"}, stored)
	text, _ := Pack(r.set, &Result{Hits: hits, Matched: len(hits)}, 0, 0, "")
	require.Contains(t, text, "3f2a9c0")
	require.Contains(t, text, "77aa000")
	for id, p := range stored {
		_, m, err := r.set.Find(p)
		require.NoError(t, err, p)
		require.Equal(t, id, m.ID)
	}
}
