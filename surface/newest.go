package surface

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// NewestQuery asks for the newest memories of the stores.
type NewestQuery struct {
	// Type keeps one type ("" all), All keeps superseded and expired
	// memories too, as of Now.
	Type string
	All  bool
	Now  time.Time
	// Limit is how many of the newest are picked (0: all); the first Skip
	// of them are left out (a later page).
	Limit, Skip int
	// Access is how the surface reads the recall snapshot.
	Access index.Access
}

// Listing is the newest memories picked from the recall snapshot's
// summaries: the filter and the order need no memory decoded, and only the
// memories shown are read, one at a time, by Each.
type Listing struct {
	// Total is how many memories passed the filter.
	Total int
	// Short are the shortest unique prefixes of their ids.
	Short map[string]string
	cat   *index.Catalog
	shown []index.Summary
}

// Newest lists the newest memories from the recall snapshot. ok is false
// when the set has no snapshot: the caller then reads the stores. The
// caller closes the listing.
func Newest(ctx context.Context, set *gitstore.Set, q NewestQuery) (l *Listing, ok bool, err error) {
	cat, err := q.Access.OpenCatalog(ctx, set)
	if err != nil {
		return nil, false, nil
	}
	shown, total, short, err := cat.Newest(q.Limit, q.Type, q.All, q.Now)
	if err != nil {
		cat.Close()
		return nil, true, err
	}
	shown = shown[min(q.Skip, len(shown)):]
	return &Listing{Total: total, Short: short, cat: cat, shown: shown}, true, nil
}

// Len is how many memories the listing shows.
func (l *Listing) Len() int { return len(l.shown) }

// Each reads the memories shown, newest first, and calls fn with each.
func (l *Listing) Each(fn func(*gitstore.Memory) error) error {
	for _, s := range l.shown {
		m, err := l.cat.Load(s)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the snapshot.
func (l *Listing) Close() { l.cat.Close() }
