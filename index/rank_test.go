package index

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
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
// again whenever that group's words score it, and read back in the order
// of the groups, whatever order the words were scored in.
func TestGroupCells(t *testing.T) {
	type hit struct {
		doc   int32
		group int
		score float64
	}
	type cell struct {
		group int
		best  float64
	}
	cases := []struct {
		name string
		docs int
		hits []hit
		want [][]cell // each document's cells, in group order
	}{
		{"one group, one document", 1, []hit{{0, 0, 1}}, [][]cell{{{0, 1}}}},
		{"a group's words meet in one cell", 1, []hit{{0, 2, 1}, {0, 2, 3}, {0, 2, 2}}, [][]cell{{{2, 3}}}},
		{"groups in turn, documents interleaved", 3,
			[]hit{{0, 0, 1}, {2, 0, 5}, {0, 1, 2}, {1, 1, 4}, {0, 1, 7}, {2, 3, 6}, {0, 4, 3}, {2, 4, 8}},
			[][]cell{{{0, 1}, {1, 7}, {4, 3}}, {{1, 4}}, {{0, 5}, {3, 6}, {4, 8}}}},
		{"groups out of order, and back to an earlier one", 2,
			[]hit{{0, 3, 1}, {1, 0, 2}, {0, 1, 2}, {0, 3, 5}, {1, 7, 1}, {0, 0, 4}, {1, 0, 3}},
			[][]cell{{{0, 4}, {1, 2}, {3, 5}}, {{0, 3}, {7, 1}}}},
		{"a document with no cell", 2, []hit{{1, 5, 2}}, [][]cell{nil, {{5, 2}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var gc groupCells
			gc.reserve(0, 0)
			for range tc.docs {
				gc.addDoc()
			}
			for _, h := range tc.hits {
				c := gc.of(h.doc, h.group)
				require.Equal(t, h.group, int(c.group))
				c.best = max(c.best, h.score)
			}
			var buf []*scoreCell
			for doc := range tc.docs {
				buf = gc.inOrder(doc, buf)
				var got []cell
				for _, c := range buf {
					got = append(got, cell{int(c.group), c.best})
				}
				require.Equal(t, tc.want[doc], got, "document %d", doc)
			}
		})
	}
}

// TestCommonSynonymsAdmitNoCandidates: a prompt's rare words bring the
// memories that match them, and their common synonyms (a "job" is also a
// "queue" and a "worker") score those memories without bringing in the
// hundreds that share only the synonym; the candidates over the floor are
// those of a full evaluation.
func TestCommonSynonymsAdmitNoCandidates(t *testing.T) {
	var entries []*entry
	add := func(text string) {
		id := fmt.Sprintf("%016x", len(entries)+1)
		entries = append(entries, &entry{key: docKey(gitstore.ScopeProject, id), scope: gitstore.ScopeProject,
			m: &gitstore.Memory{ID: id, Type: gitstore.TypeFact, Text: text}})
	}
	for i := range 600 {
		add(fmt.Sprintf("The %s %s retries invoice webhooks (note %d)", []string{"worker", "queue", "scheduler"}[i%3], []string{"billing", "ledger"}[i%2], i))
	}
	add("Dry-run the nightly payout-sync job before touching settlements")
	add("The payout-sync job holds a lock on the settlement table")
	c := newScanCorpus(entries, analyzer{})
	terms := QueryTerms("the nightly payout-sync job fails, how do I dry-run it?")
	cands, qs, err := score(c, terms, nil)
	require.NoError(t, err)
	full, _, err := score(c, terms, &Tuning{candidateFloor: 1e-9})
	require.NoError(t, err)
	above := func(cands []cand) []cand {
		var out []cand
		for _, cd := range cands {
			if cd.rel >= candidateFloor {
				out = append(out, cd)
			}
		}
		sortByRelevance(out)
		return out
	}
	require.Equal(t, above(full), above(cands))
	require.Len(t, above(cands), 2)
	require.LessOrEqual(t, qs.seen, 2, "documents matching only a common synonym were scored")
}
