package surface

import (
	"context"
	"errors"
	"os"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
)

// Pulled is what pulls did to purged memories.
type Pulled struct {
	// Purged are the full ids of the memories a teammate purged that the
	// pulls removed from this repository's history, each once.
	Purged []string
	// Rewritten reports that a remote's history still held purged memories
	// and was merged without them.
	Rewritten bool
}

// AfterPulls finishes what pulls (of pull, push, sync, or the merge of
// fetched memory) did to purged memories: when they removed memories a
// teammate purged, the caches that held their text are rebuilt before
// anything reads them. The error is the rebuild's.
func AfterPulls(ctx context.Context, set *gitstore.Set, pulls ...*gitstore.PullResult) (Pulled, error) {
	var p Pulled
	seen := map[string]bool{}
	for _, r := range pulls {
		if r == nil {
			continue
		}
		p.Rewritten = p.Rewritten || r.Rewritten
		for _, id := range r.TeammatePurged {
			if !seen[id] {
				seen[id] = true
				p.Purged = append(p.Purged, id)
			}
		}
	}
	if len(p.Purged) == 0 {
		return p, nil
	}
	return p, scrubPurged(ctx, set)
}

// scrubPurged rebuilds the caches and then lifts the pull's ScrubMarker.
func scrubPurged(ctx context.Context, set *gitstore.Set) error {
	if err := handoff.ScrubCaches(ctx, set); err != nil {
		return err
	}
	if set.Repo == nil {
		return nil
	}
	if err := os.Remove(set.Repo.Mem().ScrubMarker()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// finishScrub scrubs the caches for a pull that was stopped after it
// removed memories a teammate purged and before it rebuilt the caches (its
// ScrubMarker is still there and names memories history no longer holds).
// While history still holds one of them, the pull that purges it scrubs.
func finishScrub(ctx context.Context, set *gitstore.Set) error {
	if set.Repo == nil {
		return nil
	}
	ids := set.Repo.ScrubPending()
	if len(ids) == 0 {
		return nil
	}
	st := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject)
	rd, err := st.Read()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if m, err := rd.Get(id); err == nil && m != nil {
			return nil
		}
	}
	return scrubPurged(ctx, set)
}

// Fetched is what MergeFetched did.
type Fetched struct {
	// Pulls are the merges, one per remote that had fetched memory.
	Pulls []*gitstore.PullResult
	Pulled
	// MergeErr is why the fetched memory was not merged (all of it or the
	// rest), ScrubErr why the caches still hold a purged memory's text.
	// Neither stops the request: it goes on with the memory as it was.
	MergeErr, ScrubErr error
}

// MergeFetched merges, before a request reads or writes, the memory a plain
// git fetch brought after git mem share (gitstore.Repo.MergeFetched), then
// does what follows the merge's pulls (AfterPulls), and scrubs the caches
// when a linked store's copy removed memories its org store purged. A set without an
// on-disk repository has nothing fetched.
func MergeFetched(ctx context.Context, set *gitstore.Set, w gitstore.Writer) Fetched {
	var f Fetched
	if set.Repo == nil || set.Repo.GitDir == "" {
		return f
	}
	f.Pulls, f.MergeErr = set.Repo.MergeFetched(ctx, w)
	f.Pulled, f.ScrubErr = AfterPulls(ctx, set, f.Pulls...)
	if err := finishScrub(ctx, set); err != nil && f.ScrubErr == nil {
		f.ScrubErr = err
	}
	if err := ScrubLinks(ctx, set); err != nil && f.ScrubErr == nil {
		f.ScrubErr = err
	}
	return f
}
