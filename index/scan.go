package index

import (
	"context"
	"math"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// entry is one memory with the store it was read from.
type entry struct {
	key   string // scope:id
	scope gitstore.Scope
	m     *gitstore.Memory
}

func docKey(scope gitstore.Scope, id string) string { return string(scope) + ":" + id }

// scopeOfKey is the scope of a docKey: up to its last colon, as a linked
// store's scope ("org:NAME") holds one and an id none.
func scopeOfKey(key string) gitstore.Scope {
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return gitstore.Scope(key[:i])
	}
	return gitstore.Scope(key)
}

// docTerms are the indexed terms of a memory: its text, tags and paths,
// and its retrieval keys' terms marked with keyPrefix (a field of their own
// that ranking weighs below the text).
func docTerms(m *gitstore.Memory, a analyzer) []string {
	ts := a.analyze(m.Text)
	for _, t := range m.Tags {
		ts = append(ts, a.analyze(t)...)
	}
	for _, p := range m.Paths {
		ts = append(ts, a.analyze(p)...)
	}
	for _, k := range m.Keys {
		for _, t := range a.analyze(k) {
			ts = append(ts, keyPrefix+t)
		}
	}
	return ts
}

// keyPrefix marks the terms of a memory's retrieval keys; no analyzed
// term contains a colon, so none collides with a text term.
const keyPrefix = "k:"

// normLen is a field length as the index sees it: bleve stores
// float32(1/sqrt(length)) and scoring reads the length back from it.
func normLen(norm float64) int {
	if norm <= 0 {
		return 0
	}
	return int(math.Round(1 / (norm * norm)))
}

func lenAsNorm(n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(float32(1 / math.Sqrt(float64(n))))
}

// corpus implementations also turn their keys into external keys and load memories.
type loader interface {
	corpus
	external(doc uint64) (string, error)
	load(key string) (*entry, error)
}

// scanCorpus is the fallback: every memory read from the store and indexed
// in memory with the same analysis, statistics and scoring as the bleve index.
type scanCorpus struct {
	list   []*entry
	docs   map[string]*entry
	post   map[string][]posting
	tokens int
}

func newScanCorpus(entries []*entry, a analyzer) *scanCorpus {
	c := &scanCorpus{docs: make(map[string]*entry, len(entries)), post: map[string][]posting{}}
	c.list = entries
	for i, e := range entries {
		c.docs[e.key] = e
		terms := docTerms(e.m, a)
		c.tokens += len(terms)
		dl := normLen(lenAsNorm(len(terms)))
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		for t, n := range tf {
			c.post[t] = append(c.post[t], posting{uint64(i), n, dl})
		}
	}
	return c
}

func (c *scanCorpus) docCount() int { return len(c.list) }

func (c *scanCorpus) avgLen() float64 {
	if len(c.docs) == 0 {
		return 1
	}
	return float64(c.tokens) / float64(len(c.docs))
}

func (c *scanCorpus) postings(term string, fn func(doc uint64, tf, dl int)) error {
	for _, p := range c.post[term] {
		fn(p.doc, p.tf, p.dl)
	}
	return nil
}

func (c *scanCorpus) df(term string) (int, error) { return len(c.post[term]), nil }

func (c *scanCorpus) external(doc uint64) (string, error) { return c.list[doc].key, nil }

func (c *scanCorpus) load(key string) (*entry, error) { return c.docs[key], nil }

// readEntries reads every memory of the stores, at their tips or (asOf) at
// the commits given per store.
func readEntries(ctx context.Context, stores []*gitstore.Store, at func(*gitstore.Store) (*gitstore.Reader, error)) ([]*entry, error) {
	var out []*entry
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rd, err := at(s)
		if err != nil {
			return nil, err
		}
		ms, err := rd.All()
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			out = append(out, &entry{key: docKey(s.Scope, m.ID), scope: s.Scope, m: m})
		}
	}
	return out, nil
}
