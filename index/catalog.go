package index

import (
	"bytes"
	"context"
	"fmt"
	"slices"
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

// Catalog is the set's memories as the recall snapshot summarizes them;
// Memories lists them, Count counts them and Load reads one in full.
type Catalog struct {
	v        *snapView
	memories []Summary
}

// OpenCatalog opens the set's recall snapshot, brought up to date first, to
// read its summaries. It fails when the set has no directory for one; the
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
	return &Catalog{v: v}, nil
}

// each calls fn with every live document's summary, in no order.
func (c *Catalog) each(fn func(docSum)) error {
	sums, err := c.v.base.summaries()
	if err != nil {
		return err
	}
	for i, sm := range sums {
		if !c.v.dropped[uint64(i)] {
			fn(sm)
		}
	}
	for _, d := range c.v.added {
		if d.dead {
			continue
		}
		sm, err := d.summary()
		if err != nil {
			return err
		}
		fn(sm)
	}
	return nil
}

// Memories are the summaries, newest first (as gitstore.Set.List orders
// them), built on the first call.
func (c *Catalog) Memories() ([]Summary, error) {
	if c.memories != nil {
		return c.memories, nil
	}
	ms := make([]Summary, 0, c.v.ndocs)
	if err := c.each(func(sm docSum) { ms = append(ms, summaryOf(sm)) }); err != nil {
		return nil, err
	}
	// a total order: no stable sort needed, which at 100,000 memories costs
	// more than reading them
	slices.SortFunc(ms, func(a, b Summary) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	c.memories = ms
	return ms, nil
}

// Counts are one store's memories counted: the current ones by type, and
// the superseded or expired ones.
type Counts struct {
	Current, Retired int
	ByType           map[string]int
}

// Count counts the memories of each store of the catalog at now, without
// building a summary of each.
func (c *Catalog) Count(now time.Time) (map[gitstore.Scope]*Counts, error) {
	out := map[gitstore.Scope]*Counts{}
	at := now.Unix()
	count := func(key, typ []byte, validTo int64) {
		scope, _, _ := bytes.Cut(key, []byte(":"))
		n := out[gitstore.Scope(scope)]
		if n == nil {
			n = &Counts{ByType: map[string]int{}}
			out[gitstore.Scope(scope)] = n
		}
		// as Summary.Retired, at a whole second: summaries keep seconds
		if validTo != 0 && at >= validTo {
			n.Retired++
			return
		}
		n.Current++
		n.ByType[string(typ)]++
	}
	err := c.v.base.scanSummaries(func(i int, key, typ []byte, validTo int64) {
		if !c.v.dropped[uint64(i)] {
			count(key, typ, validTo)
		}
	})
	if err != nil {
		return nil, err
	}
	for _, d := range c.v.added {
		if d.dead {
			continue
		}
		sm, err := d.summary()
		if err != nil {
			return nil, err
		}
		count([]byte(sm.key), []byte(sm.typ), sm.validTo)
	}
	return out, nil
}

// Count counts the set's memories per store: from the recall snapshot's
// summaries when the set has a directory for one (no memory is decoded),
// otherwise from the stores.
func Count(ctx context.Context, set *gitstore.Set, now time.Time) (map[gitstore.Scope]*Counts, error) {
	if cat, err := OpenCatalog(ctx, set); err == nil {
		defer cat.Close()
		return cat.Count(now)
	}
	out := map[gitstore.Scope]*Counts{}
	for _, st := range set.Stores() {
		all, err := st.List(gitstore.Filter{All: true, Now: now})
		if err != nil {
			return nil, err
		}
		n := &Counts{ByType: map[string]int{}}
		for _, m := range all {
			if m.Retired(now) {
				n.Retired++
				continue
			}
			n.Current++
			n.ByType[m.Type]++
		}
		out[st.Scope] = n
	}
	return out, nil
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
