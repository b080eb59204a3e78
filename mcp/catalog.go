package mcp

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/surface"
)

// listed is what memory_list shows: the newest current memories of a type
// (or all types), at most max of them decoded, and how many there are with
// their ids (for the short ids).
type listed struct {
	shown []*gitstore.Memory
	total int
	short map[string]string
}

// catalogList picks the memories to list from the recall snapshot's
// summaries (surface.Newest), so that only the ones shown are read: the
// server never holds a large store's memories. ok is false when the set
// has no snapshot (the caller then reads the stores).
func catalogList(ctx context.Context, set *gitstore.Set, typ string, now time.Time, max int) (l listed, ok bool, err error) {
	nl, ok, err := surface.Newest(ctx, set, surface.NewestQuery{Type: typ, Now: now, Limit: max, Access: access})
	if !ok || err != nil {
		return l, ok, err
	}
	defer nl.Close()
	l.total, l.short = nl.Total, nl.Short
	err = nl.Each(func(m *gitstore.Memory) error {
		l.shown = append(l.shown, m)
		return nil
	})
	return l, true, err
}
