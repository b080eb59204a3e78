package hooks

import (
	"context"
	"fmt"
	"time"
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
	if _, err := h.repo.MergeFetched(ctx, h.writer()); err != nil {
		lg.log(&Outcome{Event: event, Agent: h.agent}, fmt.Errorf("warning: the memory git fetch brought was not merged: %w", err))
	}
}
