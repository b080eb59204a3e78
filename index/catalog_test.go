package index

import (
	"context"
	"fmt"
	"slices"
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
	c, err := Access{}.OpenCatalog(ctx, r.set)
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
		got, err := Access{}.Count(ctx, r.set, at)
		require.NoError(t, err)
		require.Equal(t, want, got, "counts at %v", at)

		c, err := Access{}.OpenCatalog(ctx, r.set)
		require.NoError(t, err)
		ms, total, _, err := c.Newest(len(wantIDs)+1, "", true, at)
		require.NoError(t, err)
		require.Equal(t, len(wantIDs), total)
		var gotIDs []string
		for _, s := range ms {
			gotIDs = append(gotIDs, s.ID)
		}
		c.Close()
		require.Equal(t, wantIDs, gotIDs, "newest first, as the stores list them")
	}
}

// TestShortIDsAmongIsShortIDs: the shortest unique prefixes of the ids
// shown, found in one pass over all the ids, are those gitstore.ShortIDs
// gives from all of them sorted, for ids that share long prefixes, a
// shown id that is another's neighbour, and an id in two stores.
func TestShortIDsAmongIsShortIDs(t *testing.T) {
	all := []string{
		"a1b2c3d4e5f60001", "a1b2c3d4e5f60002", "a1b2c3d4e5f70000", "a1b2c3d4ffff0000",
		"0000000000000000", "ffffffffffffffff", "a1b2c3d4e5f60001", "b000000000000000",
		"b00000000000000f", "a1b2000000000000", "c1c2c3c4c5c6c7c8",
	}
	tests := []struct {
		name  string
		shown []string
	}{
		{"neighbours shown together", []string{"a1b2c3d4e5f60001", "a1b2c3d4e5f60002"}},
		{"the first and the last", []string{"0000000000000000", "ffffffffffffffff"}},
		{"a long shared prefix", []string{"b00000000000000f", "a1b2c3d4ffff0000"}},
		{"alone", []string{"c1c2c3c4c5c6c7c8"}},
		{"everything", all[:6]},
	}
	want := gitstore.ShortIDs(all)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shortIDsAmong(tc.shown, func(fn func(id []byte)) error {
				for _, id := range all {
					fn([]byte(id))
				}
				return nil
			})
			require.NoError(t, err)
			require.Len(t, got, len(slices.Compact(slices.Sorted(slices.Values(tc.shown)))))
			for _, id := range tc.shown {
				require.Equal(t, want[id], got[id], id)
			}
		})
	}
}

// TestNewestIsTheHeadOfTheListing: the newest memories of a type (or of
// any), current or all, with their total and short ids, are the head of
// the stores' full listing, from the snapshot's base and its delta.
func TestNewestIsTheHeadOfTheListing(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	types := []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeConvention}
	var old *gitstore.Memory
	for i := 0; i < 30; i++ {
		if i == 20 {
			// the snapshot's base holds the first 20; the rest go to its delta
			c, err := Access{}.OpenCatalog(ctx, r.set)
			require.NoError(t, err)
			c.Close()
		}
		m := r.add(fmt.Sprintf("Note %d about the deploy window.", i), func(n *gitstore.NewMemory) {
			n.Type = types[i%3]
			if i%7 == 3 {
				past := r.now.Add(time.Minute)
				n.ValidTo = &past
			}
			if i == 25 {
				n.Supersedes = old.ID
			}
		})
		if i == 4 {
			old = m
		}
		if i%4 != 0 {
			r.now = r.now.Add(time.Second) // some share a second: the id orders them
		}
	}
	at := r.now.Add(time.Hour)
	c, err := Access{}.OpenCatalog(ctx, r.set)
	require.NoError(t, err)
	defer c.Close()
	for _, typ := range []string{"", gitstore.TypeDecision} {
		for _, all := range []bool{false, true} {
			full, err := r.set.List(gitstore.Filter{Type: typ, All: all, Now: at})
			require.NoError(t, err)
			var listed []string
			for _, m := range full {
				listed = append(listed, m.ID)
			}
			wantShort, err := r.set.ShortIDs(listed)
			require.NoError(t, err)
			for _, limit := range []int{0, 1, 5, len(listed), len(listed) + 3} {
				shown, total, short, err := c.Newest(limit, typ, all, at)
				require.NoError(t, err)
				require.Equal(t, len(listed), total)
				var got []string
				for _, s := range shown {
					got = append(got, s.ID)
					require.Equal(t, wantShort[s.ID], short[s.ID])
				}
				require.Equal(t, listed[:min(limit, len(listed))], append([]string{}, got...), "type %q all %v limit %d", typ, all, limit)
			}
		}
	}
}
