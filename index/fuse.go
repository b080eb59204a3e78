package index

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// MaxPhrasings is the most phrasings of one need a recall takes (Query and
// Also together).
const MaxPhrasings = 5

// fusionK is reciprocal rank fusion's constant: a memory's fused score is
// Σ 1/(fusionK + rank) over the phrasings that found it.
const fusionK = 60

// phrasings are the distinct, non-empty phrasings of a recall, at most
// MaxPhrasings, the query first.
func phrasings(query string, also []string) []string {
	var out []string
	for _, q := range append([]string{query}, also...) {
		if q = strings.TrimSpace(q); q != "" && !slices.Contains(out, q) && len(out) < MaxPhrasings {
			out = append(out, q)
		}
	}
	return out
}

// fuseHits merges the answers to several phrasings by reciprocal rank
// fusion, so that a memory several phrasings find comes first; a memory's
// confidence is the best any phrasing gave it. It returns the first limit
// and how many memories were found in all.
func fuseHits(lists [][]Hit, limit int) ([]Hit, int) {
	type fused struct {
		hit   Hit
		score float64
	}
	byKey := map[string]*fused{}
	for _, hits := range lists {
		for rank, h := range hits {
			k := docKey(h.Scope, h.Memory.ID)
			f := byKey[k]
			if f == nil {
				f = &fused{hit: h}
				byKey[k] = f
			} else if h.Confidence > f.hit.Confidence {
				f.hit = h
			}
			f.score += 1 / float64(fusionK+rank+1)
		}
	}
	all := make([]*fused, 0, len(byKey))
	for _, f := range byKey {
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].hit.Confidence != all[j].hit.Confidence {
			return all[i].hit.Confidence > all[j].hit.Confidence
		}
		return docKey(all[i].hit.Scope, all[i].hit.Memory.ID) < docKey(all[j].hit.Scope, all[j].hit.Memory.ID)
	})
	var out []Hit
	for _, f := range all {
		if len(out) == limit {
			break
		}
		out = append(out, f.hit)
	}
	return out, len(all)
}

// onePhrasing is the recall of one of o's phrasings.
func onePhrasing(o Options, q string) Options {
	o.Query, o.Also, o.Terms = q, nil, nil
	return o
}

// recallFused answers o.Query and its other phrasings o.Also: each is
// recalled at the same operating point and the answers are fused; each
// memory keeps the best confidence, and so the best label, any phrasing
// gave it.
func recallFused(ctx context.Context, set *gitstore.Set, o Options) (*Result, error) {
	res := &Result{Source: "none"}
	var lists [][]Hit
	qs := phrasings(o.Query, o.Also)
	for _, q := range qs {
		one := onePhrasing(o, q)
		one.NoStale = true
		r, err := Recall(ctx, set, one)
		if err != nil {
			return nil, err
		}
		if res.Source == "none" || r.Source == "scan" {
			res.Source, res.Fallback = r.Source, r.Fallback
		}
		res.Rebuilt = res.Rebuilt || r.Rebuilt
		if res.Embedding == "" || r.Embedding != "vectors" {
			res.Embedding = r.Embedding
		}
		res.Candidates = max(res.Candidates, r.Candidates)
		for _, t := range r.Terms {
			if !slices.Contains(res.Terms, t) {
				res.Terms = append(res.Terms, t)
			}
		}
		lists = append(lists, r.Hits)
	}
	res.Hits, res.Matched = fuseHits(lists, o.Limit)
	if !o.NoStale && set.Repo != nil {
		markStale(ctx, set.Repo, res.Hits)
	}
	return res, nil
}
