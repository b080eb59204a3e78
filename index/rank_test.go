package index

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScoreTablesReused checks that the candidate tables score keeps for the
// next call come back empty: each query answered after others (which left
// their candidates in the tables) ranks exactly as it does with fresh
// tables, and as it did the first time.
func TestScoreTablesReused(t *testing.T) {
	r := newTestRepo(t)
	words := []string{"billing", "webhook", "retry", "invoice", "postgres", "migration", "cache", "redis", "deploy", "docker"}
	for i := range 60 {
		r.add(fmt.Sprintf("Note %d: the %s %s uses %s", i, words[i%len(words)], words[(i*3+1)%len(words)], words[(i*7+2)%len(words)]))
	}
	queries := []string{"billing webhook retry", "postgres migration cache", "redis deploy docker invoice", "webhook"}
	type ranked struct {
		ids        []string
		relevances []float64
	}
	run := func(q string) ranked {
		var out ranked
		for _, h := range r.recall(q, func(o *Options) { o.Limit = 50; o.Point = Unfiltered; o.NoStale = true }).Hits {
			out.ids = append(out.ids, h.Memory.ID)
			out.relevances = append(out.relevances, h.Relevance)
		}
		return out
	}
	fresh := map[string]ranked{}
	for _, q := range queries {
		spareTables.Lock()
		spareTables.t = nil
		spareTables.Unlock()
		fresh[q] = run(q)
		require.NotEmpty(t, fresh[q].ids, q)
	}
	for round := range 2 {
		for _, q := range queries {
			require.Equal(t, fresh[q], run(q), "round %d: %q after other queries", round, q)
		}
	}
	spareTables.Lock()
	kept := spareTables.t
	spareTables.Unlock()
	require.NotNil(t, kept, "the tables were not kept")
	require.Empty(t, kept.docs)
	for _, s := range kept.slots.dense {
		require.Zero(t, s, "a slot survived its call")
	}
}

// TestGroupCells: each document keeps one cell per group it matched, found
// again while its group is scored, and read back in the order of the
// groups, however the documents' postings interleave.
func TestGroupCells(t *testing.T) {
	type hit struct {
		doc   int32
		group int
		score float64
	}
	cases := []struct {
		name string
		docs int
		hits []hit
		want [][]float64 // each document's best score per cell, in group order
	}{
		{"one group, one document", 1, []hit{{0, 0, 1}}, [][]float64{{1}}},
		{"a group's words meet in one cell", 1, []hit{{0, 2, 1}, {0, 2, 3}, {0, 2, 2}}, [][]float64{{3}}},
		{"groups in turn, documents interleaved", 3,
			[]hit{{0, 0, 1}, {2, 0, 5}, {0, 1, 2}, {1, 1, 4}, {0, 1, 7}, {2, 3, 6}, {0, 4, 3}, {2, 4, 8}},
			[][]float64{{1, 7, 3}, {4}, {5, 6, 8}}},
		{"a document with no cell", 2, []hit{{1, 5, 2}}, [][]float64{nil, {2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var gc groupCells
			gc.reserve(0, 0)
			for range tc.docs {
				gc.addDoc()
			}
			groups := make([][]int, tc.docs)
			for _, h := range tc.hits {
				c := gc.of(h.doc, h.group)
				require.Equal(t, h.group, int(c.group))
				c.best = max(c.best, h.score)
				if n := len(groups[h.doc]); n == 0 || groups[h.doc][n-1] != h.group {
					groups[h.doc] = append(groups[h.doc], h.group)
				}
			}
			var buf []*scoreCell
			for doc := range tc.docs {
				buf = gc.inOrder(doc, buf)
				var got []float64
				var gotGroups []int
				for _, c := range buf {
					got = append(got, c.best)
					gotGroups = append(gotGroups, int(c.group))
				}
				require.Equal(t, tc.want[doc], got, "document %d", doc)
				require.Equal(t, groups[doc], gotGroups, "document %d", doc)
			}
		})
	}
}
