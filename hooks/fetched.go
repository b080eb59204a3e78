package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/git-mem/git-mem/surface"
)

// fetchedMergeBudget is the most of a hook's deadline spent merging what a
// plain git fetch brought (git mem share). The check alone is a ref listing;
// a merge that does not fit is left to the next command or hook, and the
// session goes on with the memory as it was.
const fetchedMergeBudget = time.Second

// mergeFetched merges the fetched team memory before a session-start or
// prompt hook reads, so that what git fetch brought is injected too.
func (h *handler) mergeFetched(ctx context.Context, lg *logger, event string) {
	budget := fetchedMergeBudget
	if event == eventWarm {
		budget = deadlines[eventWarm]
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// a memory a teammate purged leaves the caches before anything is
	// injected from them
	f := surface.MergeFetched(ctx, h.set, h.writer())
	if f.MergeErr != nil {
		lg.log(&Outcome{Event: event, Agent: h.agent}, fmt.Errorf("warning: the memory git fetch brought was not merged: %w", f.MergeErr))
	}
	if f.ScrubErr != nil {
		lg.log(&Outcome{Event: event, Agent: h.agent}, fmt.Errorf("warning: memories a teammate purged were removed, but the caches still hold their text; run git mem reindex: %w", f.ScrubErr))
	}
}
