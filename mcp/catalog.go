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
	all, err := cat.Memories()
	if err != nil {
		return l, true, err
	}
	for _, s := range all {
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
