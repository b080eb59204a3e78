package mcp

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// listed is what memory_list shows: the newest current memories of a type
// (or all types), at most max of them decoded, and how many there are with
// their ids (for the short ids).
type listed struct {
	shown []*gitstore.Memory
	ids   []string
}

// catalogList picks the memories to list from the recall snapshot's
// summaries, so that only the ones shown are read: the server never holds
// a large store's memories. ok is false when the set has no snapshot (the
// caller then reads the stores).
func catalogList(ctx context.Context, set *gitstore.Set, typ string, now time.Time, max int) (l listed, ok bool, err error) {
	cat, err := index.OpenCatalog(ctx, set)
	if err != nil {
		return l, false, nil
	}
	defer cat.Close()
	for _, s := range cat.Memories {
		if (typ != "" && s.Type != typ) || s.Retired(now) {
			continue
		}
		l.ids = append(l.ids, s.ID)
		if len(l.shown) < max {
			m, err := cat.Load(s)
			if err != nil {
				return l, true, err
			}
			l.shown = append(l.shown, m)
		}
	}
	return l, true, nil
}

// catalogCounts counts a store's current memories by type, and its retired
// ones, from the recall snapshot's summaries; ok is false without one.
func catalogCounts(ctx context.Context, set *gitstore.Set, now time.Time) (counts map[gitstore.Scope]*StoreStats, ok bool) {
	cat, err := index.OpenCatalog(ctx, set)
	if err != nil {
		return nil, false
	}
	defer cat.Close()
	counts = map[gitstore.Scope]*StoreStats{}
	for _, s := range cat.Memories {
		ss := counts[s.Scope]
		if ss == nil {
			ss = &StoreStats{ByType: map[string]int{}}
			counts[s.Scope] = ss
		}
		if s.Retired(now) {
			ss.Retired++
			continue
		}
		ss.Current++
		ss.ByType[s.Type]++
	}
	return counts, true
}
