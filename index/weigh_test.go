package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

// TestLazyWeighingChangesNothing: rankHits, which reads a candidate only
// when its evidence can clear the threshold (or a later
// one's can), returns exactly what weighing every candidate in order
// returns, on the scan and on the snapshot, at every operating point, with
// and without exclusions, in a store where replaced memories and their
// replacements compete for the same words; and it reads fewer memories.
func TestLazyWeighingChangesNothing(t *testing.T) {
	ds, err := dataset.LoadDataset(filepath.Join(evalDir(), "tidewater"))
	require.NoError(t, err)
	r := newTestRepo(t)
	ctx := context.Background()
	require.NoError(t, ds.Load(ctx, r.main))
	genStore(t, r.main, 1500, 11)
	genReplaced(t, r.main, 200, 12)
	entries, err := readEntries(ctx, r.set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	require.NoError(t, err)
	snap, err := syncSnapshot(ctx, SnapshotPath(r.set), r.set.Stores(), Access{})
	require.NoError(t, err)
	defer snap.close()

	queries := append([]string{"deploy", "test", "the queue", "fix the flaky login test", "how do we deploy the service"}, benchQueries...)
	for _, q := range ds.Queries {
		queries = append(queries, q.Query)
	}
	replaced := 0
	for _, e := range entries { // the replaced memories' own words
		if e.m.SupersededBy != "" && replaced < 60 {
			queries = append(queries, strings.Join(strings.Fields(e.m.Text)[:3], " "))
			replaced++
		}
	}
	require.Equal(t, 60, replaced)
	points := []struct {
		name string
		o    Options
	}{
		{"injection", Options{Point: Injection}},
		{"explicit", Options{Point: Explicit}},
		{"low threshold", Options{MinConfidence: ptr(0.2)}},
		{"lower threshold", Options{MinConfidence: ptr(0.05)}},
		{"as of a day ago", Options{Point: Explicit, ValidAt: ptr(testNow.Add(-24 * time.Hour))}},
	}
	var lazyReads, eagerReads, claims int
	for name, c := range map[string]loader{"scan": newScanCorpus(entries, analyzer{}), "snapshot": snap} {
		for _, q := range queries {
			// the case the waiting candidates are read for: one that
			// cannot clear the threshold stands for the memory a later one
			// that can stands for too, and claims it first
			for _, thr := range claimingThresholds(t, c, QueryTerms(q)) {
				o := Options{Limit: 3, Now: testNow, MinConfidence: ptr(thr)}
				want, _ := rankEager(t, c, QueryTerms(q), o)
				got, _ := rankLazy(t, c, QueryTerms(q), o)
				require.Equal(t, want, got, "%s at %v: %q", name, thr, q)
				claims++
			}
			for _, p := range points {
				o := p.o
				o.Limit, o.Now = 3, testNow
				want, eager := rankEager(t, c, QueryTerms(q), o)
				got, lazy := rankLazy(t, c, QueryTerms(q), o)
				require.Equal(t, want, got, "%s %s: %q", name, p.name, q)
				if o.Point == Injection || o.MinConfidence != nil {
					// explicit recall has no threshold: it reads every candidate
					eagerReads += eager
					lazyReads += lazy
				}
				if len(want) == 0 {
					continue
				}
				// without the best hit, the next ones move up
				o.Exclude = map[string]bool{want[0].Memory.ID: true}
				want, _ = rankEager(t, c, QueryTerms(q), o)
				got, _ = rankLazy(t, c, QueryTerms(q), o)
				require.Equal(t, want, got, "%s %s without the best: %q", name, p.name, q)
			}
		}
	}
	require.Less(t, lazyReads, eagerReads/2, "weighing lazily reads fewer memories where there is a threshold")
	require.Positive(t, claims, "no query had a waiting candidate claim a memory")
}

// claimingThresholds are the thresholds at which a candidate cannot clear
// the threshold, and a later one that
// stands for the same memory can.
func claimingThresholds(t *testing.T, c loader, terms []string) []float64 {
	o := Options{Limit: 3, Now: testNow}
	top, _, qs, err := scoreTop(c, terms, nil, max(minCandidates, candidatesPerResult*o.Limit))
	require.NoError(t, err)
	// what each candidate stands for, each weighed alone
	stands := make([]string, len(top))
	for i := range top {
		alone := weigher{c: c, o: &o, seen: map[string]bool{}}
		k, err := alone.weigh(&top[i])
		require.NoError(t, err)
		if k != nil {
			stands[i] = k.en.key
		}
	}
	var out []float64
	for i := range top {
		for j := i + 1; j < len(top); j++ {
			ci := confidenceOf(featuresOf(top[i], qs), &confidenceWeights)
			cj := confidenceOf(featuresOf(top[j], qs), &confidenceWeights)
			if stands[i] != "" && stands[i] == stands[j] && ci < cj {
				out = append(out, cj)
			}
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// rankLazy is rankHits, counting the memories it reads.
func rankLazy(t *testing.T, c loader, terms []string, o Options) ([]Hit, int) {
	cl := &countingLoader{loader: c}
	hits, _, _, err := rankHits(cl, terms, &o)
	require.NoError(t, err)
	return hits, cl.reads
}

// rankEager is rankHits as it would be weighing every candidate in order
// before reading any confidence (without All, which rankHits handles alike
// either way).
func rankEager(t *testing.T, c loader, terms []string, o Options) ([]Hit, int) {
	cl := &countingLoader{loader: c}
	top, _, qs, err := scoreTop(cl, terms, o.Tuning, max(minCandidates, candidatesPerResult*o.Limit))
	require.NoError(t, err)
	kept, err := weighAll(cl, top, &o)
	require.NoError(t, err)
	threshold := o.Point.Threshold()
	if o.MinConfidence != nil {
		threshold = *o.MinConfidence
	}
	var hits []Hit
	for _, k := range kept {
		conf := confidenceOf(featuresOf(k.cd, qs), &confidenceWeights)
		if conf < threshold {
			continue
		}
		s, trust := finalScore(k.cd.rel, conf, k.en.m, &o, map[string]bool{}, o.Tuning)
		if trust < o.MinTrust {
			continue
		}
		hits = append(hits, Hit{Memory: k.en.m, Scope: k.en.scope, Score: s, Relevance: k.cd.rel, Confidence: conf, Trust: trust})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return docKey(hits[i].Scope, hits[i].Memory.ID) < docKey(hits[j].Scope, hits[j].Memory.ID)
	})
	if len(hits) > o.Limit {
		hits = hits[:o.Limit]
	}
	return hits, cl.reads
}

// countingLoader counts the memories read through it. It hides the
// corpus's optional readers (prepare, postingsAmong), which both sides of
// the comparison then score without; TestPruningChangesNothing shows they
// change no candidate.
type countingLoader struct {
	loader
	reads int
}

func (c *countingLoader) load(key string) (*entry, error) {
	c.reads++
	return c.loader.load(key)
}

// genReplaced writes n generated memories that each replaced an older one
// with most of its words, a third of them in chains of two replacements.
func genReplaced(t *testing.T, st *gitstore.Store, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	_, err := st.Update(context.Background(), gitstore.Writer{Agent: "test"}, func(tx *gitstore.Tx) error {
		now := tx.Now()
		for i := 0; i < n; i++ {
			words := strings.Fields(benchText(r))
			hops := 1 + i%3/2
			var older *gitstore.Memory
			for h := 0; h <= hops; h++ {
				at := now.Add(-time.Duration(48*(hops-h)+r.IntN(24)) * time.Hour)
				m := &gitstore.Memory{
					Schema: gitstore.SchemaVersion, ID: fmt.Sprintf("%016x", r.Uint64()), Type: gitstore.TypeFact,
					Text: strings.Join(words, " "), Source: gitstore.SourceVerified, Trust: 0.75, Agent: "test",
					Created: at, Updated: at, ValidFrom: at,
				}
				if older != nil {
					older.ValidTo, older.SupersededBy, m.Supersedes = &at, m.ID, older.ID
					tx.Put(older)
				}
				words[r.IntN(len(words))] = benchWords[r.IntN(len(benchWords))]
				older = m
			}
			tx.Put(older)
		}
		tx.Describe("add", fmt.Sprintf("%d replaced memories", n), "replaced")
		return nil
	})
	require.NoError(t, err)
}
