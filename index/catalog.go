package index

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Summary is what listing and counting need of a memory, read from the
// recall snapshot's summary table without decoding the memory.
type Summary struct {
	Scope    gitstore.Scope
	ID, Type string
	Created  time.Time
	// ValidTo is when the memory stopped being current (superseded or
	// expired); zero: it still is.
	ValidTo time.Time
	key     string
}

// Retired reports whether the memory is superseded or expired at t, as
// gitstore.Memory.Retired does.
func (s Summary) Retired(t time.Time) bool { return !s.ValidTo.IsZero() && !t.Before(s.ValidTo) }

// Catalog is the set's memories as the recall snapshot summarizes them,
// newest first (as gitstore.Set.List orders them); Load reads one in full.
type Catalog struct {
	Memories []Summary
	v        *snapView
}

// OpenCatalog reads the set's summaries from its recall snapshot, brought
// up to date first. It fails when the set has no directory for one; the
// caller then reads the stores.
func OpenCatalog(ctx context.Context, set *gitstore.Set) (*Catalog, error) {
	path := SnapshotPath(set)
	if path == "" {
		return nil, fmt.Errorf("%w: this store has no directory to hold a snapshot", gitstore.ErrNoRepo)
	}
	v, err := syncSnapshot(ctx, path, set.Stores())
	if err != nil {
		return nil, err
	}
	sums, err := v.base.summaries()
	if err != nil {
		v.close()
		return nil, err
	}
	c := &Catalog{v: v, Memories: make([]Summary, 0, v.ndocs)}
	for i, sm := range sums {
		if !v.dropped[uint64(i)] {
			c.Memories = append(c.Memories, summaryOf(sm))
		}
	}
	for _, d := range v.added {
		if d.dead {
			continue
		}
		sm, err := d.summary()
		if err != nil {
			v.close()
			return nil, err
		}
		c.Memories = append(c.Memories, summaryOf(sm))
	}
	sort.SliceStable(c.Memories, func(i, j int) bool {
		a, b := c.Memories[i], c.Memories[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		return a.ID < b.ID
	})
	return c, nil
}

func summaryOf(sm docSum) Summary {
	s := Summary{Scope: scopeOfKey(sm.key), Type: sm.typ, Created: time.Unix(sm.created, 0).UTC(), key: sm.key}
	_, s.ID, _ = strings.Cut(sm.key, ":")
	if sm.validTo != 0 {
		s.ValidTo = time.Unix(sm.validTo, 0).UTC()
	}
	return s
}

// Load reads a memory of the catalog in full.
func (c *Catalog) Load(s Summary) (*gitstore.Memory, error) {
	e, err := c.v.load(s.key)
	if err != nil {
		return nil, err
	}
	return e.m.InScope(s.Scope), nil
}

// Close releases the snapshot file.
func (c *Catalog) Close() { c.v.close() }
