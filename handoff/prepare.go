package handoff

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// PreparedStart is what a session start shows whatever the files being
// changed: the start cache's memories, read ahead by PrepareStart.
type PreparedStart struct {
	now      time.Time
	standing []cachedMem
	recent   func() []cachedMem
	subagent map[string]bool
}

// PrepareStart reads, for SessionStart with the same options, what does
// not depend on the files being changed (StartOptions.Touched): the start
// cache, and the vocabulary the branch's words are analyzed with. A hook
// calls it while git looks at the worktree, then passes the result in
// StartOptions.Prepared.
func PrepareStart(ctx context.Context, set *gitstore.Set, o StartOptions) (*PreparedStart, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	p := &PreparedStart{now: o.Now}
	if set == nil {
		return p, nil
	}
	var err error
	p.standing, p.recent, p.subagent, err = startMemories(ctx, set, o.Now)
	if err != nil {
		return nil, err
	}
	index.QueryTerms(branchWords(o.Branch)) // loads the vocabulary once per process
	return p, nil
}

// startMemoriesFor returns the prepared memories when they were read for
// now, else reads them.
func (p *PreparedStart) startMemoriesFor(ctx context.Context, set *gitstore.Set, now time.Time) ([]cachedMem, func() []cachedMem, map[string]bool, error) {
	if p != nil && p.now.Equal(now) && p.recent != nil {
		return p.standing, p.recent, p.subagent, nil
	}
	return startMemories(ctx, set, now)
}
