package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/surface"
)

// eventLinks is the internal event of the background process a session's
// end starts when a linked store is due for a refresh (mem.link.refresh):
// it fetches the org stores into their local copies, then brings this
// repository's caches forward over what they brought. A hook never fetches
// on its own path. Run by git mem hook links.
const eventLinks = "links"

// linksDue reports whether a session's end should start eventLinks.
func (h *handler) linksDue() bool {
	return linkstore.AnyDue(h.repo, h.req.Now())
}

// refreshLinks fetches the repository's linked stores that are due, each
// once whichever repository of the machine asks (the copy's lock and its
// last try), and warms the caches when one brought something.
func (h *handler) refreshLinks(ctx context.Context) error {
	ls, _ := linkstore.Open(h.repo)
	interval := linkstore.RefreshInterval(h.repo)
	var errs []error
	fetched := false
	for _, l := range ls {
		res, err := l.Copy.Refresh(ctx, linkstore.RefreshOptions{Interval: interval, Now: h.req.Now, Writer: h.writer()})
		if err != nil {
			errs = append(errs, fmt.Errorf("refreshing the linked store %s: %w", l.Name, err))
			continue
		}
		fetched = fetched || res.Fetched
	}
	if fetched {
		// the copies' new tips, and their purges' scrub, before the caches
		surface.AttachLinks(h.set, surface.Clock{Now: h.req.Now, Dates: h.req.GitDates})
		if err := surface.ScrubLinks(ctx, h.set); err != nil {
			errs = append(errs, err)
		}
		if err := h.warm(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
