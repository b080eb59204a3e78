package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/surface"
)

// afterPulls finishes what pulls (of pull, push or sync) did to purged
// memories: memories a teammate purged were removed from this repository's
// history, so the caches that held their text are rebuilt and the user is
// told; a remote history rewritten without purged memories is mentioned.
func afterPulls(ctx context.Context, env *Env, set *gitstore.Set, pulls ...*gitstore.PullResult) error {
	p, err := surface.AfterPulls(ctx, set, pulls...)
	return tellPulled(env, set, p, err)
}

// tellPulled says on stderr what pulls did to purged memories (see
// surface.AfterPulls), and returns the caches' rebuild error, err, in the
// CLI's words.
func tellPulled(env *Env, set *gitstore.Set, p surface.Pulled, err error) error {
	if p.Rewritten {
		fmt.Fprintln(env.Err, "the remote's memory history still held purged memories: merged without them (a push replaces it)")
	}
	if len(p.Purged) == 0 {
		return nil
	}
	ids := make([]string, len(p.Purged))
	for i, id := range p.Purged {
		ids[i] = gitstore.Clip(id, gitstore.MinShownPrefix)
	}
	if err != nil {
		return fmt.Errorf("removed memories a teammate purged, but could not rebuild the caches that held their text (delete %s and run git mem reindex): %w", index.Dir(set), err)
	}
	what := "memories"
	if len(ids) == 1 {
		what = "memory"
	}
	fmt.Fprintf(env.Err, "%d %s purged by a teammate were removed from this repository's history: %s\n", len(ids), what, strings.Join(ids, ", "))
	fmt.Fprintln(env.Err, "The old objects stay on disk, unreachable, until: git reflog expire --expire-unreachable=now --all && git gc --prune=now")
	return nil
}
