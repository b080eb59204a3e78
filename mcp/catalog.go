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
	total int
	short map[string]string
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
	newest, total, short, err := cat.Newest(max, typ, false, now)
	if err != nil {
		return l, true, err
	}
	l.total, l.short = total, short
	for _, s := range newest {
		m, err := cat.Load(s)
		if err != nil {
			return l, true, err
		}
		l.shown = append(l.shown, m)
	}
	return l, true, nil
}
