package index

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestCatalogAgreesWithTheStores: the catalog's listing and counts, read
// from the snapshot's base and the delta written after it, are those the
// stores give, at times before and after a memory expires.
func TestCatalogAgreesWithTheStores(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	for i, tx := range []string{"Deploys go out on Tuesdays.", "The API speaks JSON only.", "Use pnpm, never npm."} {
		r.add(tx, func(n *gitstore.NewMemory) {
			n.Type = []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeConvention}[i]
		})
		r.now = r.now.Add(time.Second)
	}
	// the snapshot's base holds these three; what follows goes to its delta
	c, err := OpenCatalog(ctx, r.set)
	require.NoError(t, err)
	c.Close()
	expiry := r.now.Add(time.Hour)
	r.add("The staging database is read-only this week.", func(n *gitstore.NewMemory) { n.ValidTo = &expiry })
	r.now = r.now.Add(time.Second)
	old := r.add("Builds run on Node 18.")
	r.now = r.now.Add(time.Second)
	r.add("Builds run on Node 22.", func(n *gitstore.NewMemory) { n.Supersedes = old.ID })

	for _, at := range []time.Time{r.now.Add(time.Minute), expiry.Add(time.Minute)} {
		want := map[gitstore.Scope]*Counts{}
		all, err := r.set.List(gitstore.Filter{All: true, Now: at})
		require.NoError(t, err)
		var wantIDs []string
		for _, m := range all {
			wantIDs = append(wantIDs, m.ID)
			n := want[gitstore.ScopeProject]
			if n == nil {
				n = &Counts{ByType: map[string]int{}}
				want[gitstore.ScopeProject] = n
			}
			if m.Retired(at) {
				n.Retired++
			} else {
				n.Current++
				n.ByType[m.Type]++
			}
		}
		got, err := Count(ctx, r.set, at)
		require.NoError(t, err)
		require.Equal(t, want, got, "counts at %v", at)

		c, err := OpenCatalog(ctx, r.set)
		require.NoError(t, err)
		ms, err := c.Memories()
		require.NoError(t, err)
		var gotIDs []string
		for _, s := range ms {
			gotIDs = append(gotIDs, s.ID)
		}
		c.Close()
		require.Equal(t, wantIDs, gotIDs, "newest first, as the stores list them")
	}
}
