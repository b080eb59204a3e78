package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
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
	res, err := h.repo.MergeFetched(ctx, h.writer())
	if err != nil {
		lg.log(&Outcome{Event: event, Agent: h.agent}, fmt.Errorf("warning: the memory git fetch brought was not merged: %w", err))
	}
	if teammatePurged(res) {
		// a teammate purged a memory this clone held: its text must leave the
		// caches before anything is injected from them
		if err := handoff.ScrubCaches(ctx, h.set); err != nil {
			lg.log(&Outcome{Event: event, Agent: h.agent}, fmt.Errorf("warning: memories a teammate purged were removed, but the caches still hold their text; run git mem reindex: %w", err))
		}
	}
}

// teammatePurged reports whether a merge removed memories a teammate purged.
func teammatePurged(res []*gitstore.PullResult) bool {
	for _, r := range res {
		if r != nil && len(r.TeammatePurged) > 0 {
			return true
		}
	}
	return false
}
