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
