package index

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
	"github.com/git-mem/git-mem/memerr"
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

// Catalog is the set's memories as the recall snapshot summarizes them;
// Newest lists the first of them, Count counts them and Load reads one in
// full.
type Catalog struct {
	v *snapView
}

func openCatalog(ctx context.Context, set *gitstore.Set, acc Access) (*Catalog, error) {
	path := SnapshotPath(set)
	if path == "" {
		return nil, fmt.Errorf("%w: this store has no directory to hold a snapshot", memerr.ErrNoRepo)
	}
	v, err := syncSnapshot(ctx, path, set.Stores(), acc)
	if err != nil {
		return nil, err
	}
	return &Catalog{v: v}, nil
}

// Counts are one store's memories counted: the current ones by type, and
// the superseded or expired ones.
type Counts struct {
	Current, Retired int
	ByType           map[string]int
}

// scan calls fn with each live memory's summary fields, in no order,
// without building a summary: key and typ are valid only during the call.
func (c *Catalog) scan(fn func(key, typ []byte, created, validTo int64)) error {
	return c.v.scanSummaries(fn)
}

// scanSummaries calls fn with each live memory's summary fields, in no
// order: the base's that the delta kept, then the delta's.
func (v *snapView) scanSummaries(fn func(key, typ []byte, created, validTo int64)) error {
	err := v.base.ScanSummaries(func(i int, key, typ []byte, created, validTo int64) {
		if !v.dropped[uint64(i)] {
			fn(key, typ, created, validTo)
		}
	})
	if err != nil {
		return err
	}
	for _, d := range v.added {
		if d.dead {
			continue
		}
		sm, err := d.summary()
		if err != nil {
			return err
		}
		fn([]byte(sm.Key), []byte(sm.Type), sm.Created, sm.ValidTo)
	}
	return nil
}

// retiredAt is Summary.Retired on a summary's fields, at a whole second:
// summaries keep seconds.
func retiredAt(validTo, at int64) bool { return validTo != 0 && at >= validTo }

// Count counts the memories of each store of the catalog at now, without
// building a summary of each.
func (c *Catalog) Count(now time.Time) (map[gitstore.Scope]*Counts, error) {
	out := map[gitstore.Scope]*Counts{}
	at := now.Unix()
	err := c.scan(func(key, typ []byte, _, validTo int64) {
		scope, _, _ := bytes.Cut(key, []byte(":"))
		n := out[gitstore.Scope(scope)]
		if n == nil {
			n = &Counts{ByType: map[string]int{}}
			out[gitstore.Scope(scope)] = n
		}
		if retiredAt(validTo, at) {
			n.Retired++
			return
		}
		n.Current++
		n.ByType[string(typ)]++
	})
	return out, err
}

func count(ctx context.Context, set *gitstore.Set, now time.Time, acc Access) (map[gitstore.Scope]*Counts, error) {
	if cat, err := openCatalog(ctx, set, acc); err == nil {
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

func summaryOf(sm snapshot.Summary) Summary {
	s := Summary{Scope: scopeOfKey(sm.Key), Type: sm.Type, Created: time.Unix(sm.Created, 0).UTC(), key: sm.Key}
	_, s.ID, _ = strings.Cut(sm.Key, ":")
	if sm.ValidTo != 0 {
		s.ValidTo = time.Unix(sm.ValidTo, 0).UTC()
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

// Newest returns, of the memories of type typ ("": any) that are current at
// now (all: retired ones too), the first limit, newest first (as
// gitstore.Set.List orders them, at the summaries' whole seconds); how many
// there are in all; and the shortest unique prefix
// of each returned id among the ids of every memory of the stores (as
// gitstore.Set.ShortIDs gives it).
// It reads the summary table twice and builds a summary only of the
// memories it may return, so a screenful of a large store costs no sort
// of every memory.
func (c *Catalog) Newest(limit int, typ string, all bool, now time.Time) (shown []Summary, total int, short map[string]string, err error) {
	at := now.Unix()
	pass := func(fn func(key, typ []byte, created, validTo int64)) error {
		return c.scan(func(key, t []byte, created, validTo int64) {
			if (typ == "" || string(t) == typ) && (all || !retiredAt(validTo, at)) {
				fn(key, t, created, validTo)
			}
		})
	}
	// first pass: the newest limit, kept in order (a short insertion list)
	newer := func(a Summary, created int64, id []byte) bool {
		if ac := a.Created.Unix(); ac != created {
			return ac > created
		}
		return a.ID < string(id)
	}
	err = pass(func(key, t []byte, created, validTo int64) {
		total++
		_, id, _ := bytes.Cut(key, []byte(":"))
		if len(shown) == limit && (limit == 0 || newer(shown[limit-1], created, id)) {
			return
		}
		i := sort.Search(len(shown), func(i int) bool { return !newer(shown[i], created, id) })
		sm := summaryOf(snapshot.Summary{Key: string(key), Type: string(t), Created: created, ValidTo: validTo})
		if len(shown) < limit {
			shown = append(shown, Summary{})
		}
		copy(shown[i+1:], shown[i:])
		shown[i] = sm
	})
	if err != nil {
		return nil, 0, nil, err
	}
	// second pass: each shown id's neighbours among all the ids of the
	// stores, listed or not (a superseded memory's id is one git mem show
	// resolves too)
	ids := make([]string, len(shown))
	for i, s := range shown {
		ids[i] = s.ID
	}
	short, err = shortIDsAmong(ids, func(fn func(id []byte)) error {
		return c.scan(func(key, _ []byte, _, _ int64) {
			_, id, _ := bytes.Cut(key, []byte(":"))
			fn(id)
		})
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return shown, total, short, nil
}

// shortIDsAmong is gitstore.ShortIDs of the ids shown, among all the ids
// each yields (the shown ones included), found by one pass that keeps only
// each shown id's nearest neighbours instead of sorting every id.
func shortIDsAmong(shown []string, each func(fn func(id []byte)) error) (map[string]string, error) {
	ids := slices.Clone(shown)
	sort.Strings(ids)
	pred, succ := make([]string, len(ids)), make([]string, len(ids))
	err := each(func(id []byte) {
		// ids[lo-1] < id <= ids[lo] and ids[hi-1] <= id < ids[hi]: id is the
		// successor candidate of ids[lo-1] and the predecessor one of ids[hi]
		lo := sort.Search(len(ids), func(i int) bool { return ids[i] >= string(id) })
		hi := sort.Search(len(ids), func(i int) bool { return ids[i] > string(id) })
		if lo > 0 && (succ[lo-1] == "" || string(id) < succ[lo-1]) {
			succ[lo-1] = string(id)
		}
		if hi < len(ids) && (pred[hi] == "" || string(id) > pred[hi]) {
			pred[hi] = string(id)
		}
	})
	if err != nil {
		return nil, err
	}
	short := make(map[string]string, len(ids))
	for i, id := range ids {
		short[id] = gitstore.ShortestUnique(id, []string{pred[i], succ[i]})
	}
	return short, nil
}
