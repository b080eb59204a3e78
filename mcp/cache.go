package mcp

import (
	"errors"
	"sort"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// maxCached bounds the document cache; past it the cache starts over. The
// cache serves only sets without a recall snapshot (memory_list and
// memory_stats read its summaries), so the server does not grow with a
// large store.
const maxCached = 20000

// docCache keeps decoded memory documents by store and blob hash. A blob
// never changes, so a cached document is exactly the one a tree names: every
// call still reads the current trees (and so sees every other writer), but
// only documents the server has not seen yet are read and decoded. It makes
// memory_list and memory_stats of a large store cost a tree walk, not
// thousands of object reads.
type docCache struct {
	mu sync.Mutex
	m  map[docKey]*gitstore.Memory
}

type docKey struct {
	scope gitstore.Scope
	hash  string
}

// list returns the current memories (or, with all, also the superseded
// and expired ones) of every store of the set, newest first, like
// gitstore.Set.List.
func (c *docCache) list(set *gitstore.Set, f gitstore.Filter) ([]*gitstore.Memory, error) {
	var out []*gitstore.Memory
	for _, st := range set.Stores() {
		ms, err := c.read(st)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if f.Keep(m) {
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// read returns every memory in the store's current tree (copies).
func (c *docCache) read(st *gitstore.Store) ([]*gitstore.Memory, error) {
	rd, err := st.Read()
	if err != nil {
		return nil, err
	}
	hashes, err := rd.BlobHashes()
	if err != nil {
		return nil, err
	}
	out := make([]*gitstore.Memory, 0, len(hashes))
	for id, h := range hashes {
		k := docKey{st.Scope, h.String()}
		c.mu.Lock()
		m := c.m[k]
		c.mu.Unlock()
		if m == nil {
			m, err = rd.Get(id)
			if errors.Is(err, memerr.ErrBadDocument) {
				continue // an invalid document is skipped; git mem doctor lists it
			}
			if err != nil {
				return nil, err
			}
			c.mu.Lock()
			if c.m == nil || len(c.m) >= maxCached {
				c.m = map[docKey]*gitstore.Memory{}
			}
			c.m[k] = m
			c.mu.Unlock()
		}
		cp := *m
		out = append(out, &cp)
	}
	return out, nil
}
