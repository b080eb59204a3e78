package index

import (
	"context"
	"os"
	"sort"
	"time"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/gitstore"
)

// Embeddings (package embedding) are optional: with git config mem.embed.url
// set, recall also ranks the memories by the cosine similarity of their
// vectors to the query's, fuses that ranking with the lexical one by
// reciprocal rank fusion (fuse.go), and lets a close enough vector carry a
// memory's confidence. Unset, none of this runs (docs/architecture.md,
// "Embeddings").

// embedRepo is the repository whose vector cache serves the set.
func embedRepo(set *gitstore.Set) *gitstore.Repo {
	switch {
	case set == nil:
		return nil
	case set.Repo != nil:
		return set.Repo
	}
	return set.Personal
}

// vectorConfidence maps a similarity onto the confidence scale, so that
// its label means what a lexical one does: the endpoint's injection score
// (injectAt) is just enough for the prompt hook, 1 is certain, and a
// similarity from the floor up to injectAt rises from 0 towards it. Not
// fitted on data (no model runs where the eval runs).
func vectorConfidence(sim, floor, injectAt float64) float64 {
	switch {
	case sim < floor:
		return 0
	case sim < injectAt:
		return injectionThreshold * (sim - floor) / (injectAt - floor)
	}
	return min(1, injectionThreshold+(1-injectionThreshold)*(sim-injectAt)/max(1-injectAt, 1e-9))
}

// fuseVectors is recall's one fusion step with the vector ranking: the
// memories whose vectors are at least the point's floor near the query's
// are ranked by similarity (with the same trust, recency and boosts as the
// lexical hits) and fused with res.Hits. A memory both rankings find keeps
// the better of its two confidences. Any failure leaves res lexical and
// says why in res.Embedding.
func fuseVectors(ctx context.Context, set *gitstore.Set, c loader, o *Options, res *Result) {
	if o.Point == Unfiltered || o.AsOf != nil || o.Tuning != nil {
		return // the duplicate check and the eval are lexical; past states have no vectors
	}
	e := embedding.Open(embedRepo(set))
	if e == nil {
		return
	}
	cfg := e.Config()
	floor := cfg.MinScore
	if o.Point == Injection {
		floor = cfg.InjectScore()
	}
	threshold := o.Point.Threshold()
	if o.MinConfidence != nil {
		threshold = *o.MinConfidence
	}
	injectAt := cfg.InjectScore()
	q, err := e.Query(ctx, o.Query, time.Now())
	if err == nil {
		var ms []embedding.Match
		if ms, err = e.Search(ctx, q, max(minCandidates, candidatesPerResult*o.Limit), floor); err == nil {
			res.Embedding = "vectors"
			fuseMatches(c, ms, floor, injectAt, threshold, o, res)
			return
		}
	}
	res.Embedding = "lexical only: " + err.Error()
}

func fuseMatches(c loader, ms []embedding.Match, floor, injectAt, threshold float64, o *Options, res *Result) {
	touched := o.touchedPaths()
	sims := map[string]float64{}
	var near []Hit
	for _, m := range ms {
		en, err := c.load(m.Key)
		if err != nil || en == nil || embedding.HashOf(en.m.Text) != m.Hash || !keep(en.m, o) {
			continue // gone, revised since it was embedded, or not to be returned
		}
		conf := vectorConfidence(m.Score, floor, injectAt)
		if conf < threshold {
			continue
		}
		s, trust := finalScore(m.Score, conf, en.m, o, touched, o.Tuning)
		if trust < o.MinTrust {
			continue
		}
		sims[en.key] = m.Score
		near = append(near, Hit{Memory: en.m, Scope: en.scope, Score: s, Relevance: m.Score, Confidence: conf, Similarity: m.Score, Trust: trust})
	}
	if len(near) == 0 {
		return
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].Score > near[j].Score })
	lexical := make(map[string]bool, len(res.Hits))
	for i := range res.Hits {
		h := &res.Hits[i]
		k := docKey(h.Scope, h.Memory.ID)
		lexical[k] = true
		if sim, ok := sims[k]; ok {
			h.Similarity = sim
			h.Confidence = max(h.Confidence, vectorConfidence(sim, floor, injectAt))
		}
	}
	only := 0
	for i := range near {
		k := docKey(near[i].Scope, near[i].Memory.ID)
		if lexical[k] {
			near[i] = res.Hits[indexOfHit(res.Hits, k)]
		} else {
			only++
		}
	}
	res.Hits, _ = fuseHits([][]Hit{res.Hits, near}, o.Limit)
	res.Matched += only
}

func indexOfHit(hits []Hit, key string) int {
	for i, h := range hits {
		if docKey(h.Scope, h.Memory.ID) == key {
			return i
		}
	}
	return -1
}

// EmbedMemories caches the vectors of memories just written to a store of
// the set (scope), best effort; nothing happens without embeddings
// configured: a failure leaves them for git mem reindex, and the back-off keeps
// a dead endpoint from costing the next write.
func EmbedMemories(ctx context.Context, set *gitstore.Set, scope gitstore.Scope, ms ...*gitstore.Memory) {
	e := embedding.Open(embedRepo(set))
	if e == nil {
		return
	}
	var items []embedding.Item
	for _, m := range ms {
		if m != nil {
			items = append(items, embedding.Item{Key: docKey(scope, m.ID), Text: m.Text})
		}
	}
	_, _ = e.Fill(ctx, items, time.Now(), nil)
}

// VectorsResult says what FillVectors did.
type VectorsResult struct {
	// Model is the embedding model; Memories how many current memories
	// there are, Cached how many of them have a vector now.
	Model            string
	Memories, Cached int
	embedding.FillResult
	// Removed is how many cached vectors no memory needs any more.
	Removed int
}

// FillVectors embeds every current memory of the set that has no vector
// for its text (git mem reindex), asking the endpoint even within its
// back-off window, and drops the vectors no memory needs. It returns nil
// when embeddings are not configured.
func FillVectors(ctx context.Context, set *gitstore.Set, progress Progress) (*VectorsResult, error) {
	e := embedding.Open(embedRepo(set))
	if e == nil {
		return nil, nil
	}
	e.Eager()
	entries, err := readEntries(ctx, set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	if err != nil {
		return nil, err
	}
	now := time.Now()
	res := &VectorsResult{Model: e.Config().Model}
	var items []embedding.Item
	want := map[string]embedding.Hash{}
	for _, en := range entries {
		if en.m.Retired(now) {
			continue
		}
		items = append(items, embedding.Item{Key: en.key, Text: en.m.Text})
		want[en.key] = embedding.HashOf(en.m.Text)
	}
	res.Memories = len(items)
	if res.Removed, err = embedding.Prune(e.Dir(), func(k string, h embedding.Hash) bool { return want[k] == h }); err != nil {
		return res, err
	}
	var prog func(done, total int)
	if progress != nil {
		prog = func(done, total int) { progress(done, total) }
	}
	res.FillResult, err = e.Fill(ctx, items, now, prog)
	if n, cerr := e.Count(); cerr == nil {
		res.Cached = n
	}
	return res, err
}

// PruneVectors drops from the vector cache every vector whose memory is no
// longer in the set with that text: after a purge, a purged memory's
// vector must not outlive it. It reads nothing when no cache exists, and
// needs no endpoint.
func PruneVectors(ctx context.Context, set *gitstore.Set) error {
	r := embedRepo(set)
	if r == nil || r.Mem().Vectors() == "" {
		return nil
	}
	dir := r.Mem().Vectors()
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	entries, err := readEntries(ctx, set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	if err != nil {
		return err
	}
	have := map[string]embedding.Hash{}
	for _, en := range entries {
		have[en.key] = embedding.HashOf(en.m.Text)
	}
	_, err = embedding.Prune(dir, func(k string, h embedding.Hash) bool { return have[k] == h })
	return err
}
