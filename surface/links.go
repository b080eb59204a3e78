package surface

import (
	"context"
	"fmt"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/linkstore"
)

// AttachLinks adds the linked stores of the set's repository to the set,
// read after its own (linkstore.Attach: their local copies as they are,
// from files alone; nothing is fetched), on the request's clock. A link that
// cannot be read is left out: git mem doctor reports it.
func AttachLinks(set *gitstore.Set, c Clock) []linkstore.Linked {
	ls, _ := linkstore.Attach(set)
	for _, st := range set.Linked {
		_ = UseClock(st.Repo, c)
	}
	return ls
}

// ScrubLinks rebuilds the caches that may hold the text of memories an org
// store purged, when a linked copy removed such memories since this
// repository's caches were last scrubbed for it: the purge of an org memory
// reaches every project that read it, as a teammate's purge does.
func ScrubLinks(ctx context.Context, set *gitstore.Set) error {
	if set.Repo == nil || len(set.Linked) == 0 {
		return nil
	}
	ls := linkstore.Unopened(set.Repo)
	seen := set.Repo.Mem().LinkScrubs()
	if seen == "" || !linkstore.ScrubDue(ls, seen) {
		return nil
	}
	if err := handoff.ScrubCaches(ctx, set); err != nil {
		return fmt.Errorf("an org store purged memories, but the caches that held their text were not rebuilt: %w", err)
	}
	return linkstore.MarkScrubbed(ls, seen)
}
