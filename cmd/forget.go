package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

type forgetOptions struct {
	id, agent, ifVersion string
	purge                bool
}

func newForgetCmd(env *Env) *cobra.Command {
	o := &forgetOptions{}
	c := &cobra.Command{
		Use:   "forget ID [--purge]",
		Short: "Remove a memory (history keeps it; --purge erases it from history too)",
		Long: `Remove a memory from the current store; git mem history still shows it.

With --purge the history of every local memory ref is rewritten without the
memory (use it for a secret saved by mistake), and git itself is then asked to
prove that no reachable object still holds the text. Copies already pushed to a
remote or fetched by teammates must be purged there too. --purge also accepts
the full id of a memory that was already forgotten.`,
		Args: exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if o.purge && o.ifVersion != "" {
				return usagef("--purge erases every version of the memory; it takes no --if-version")
			}
			return runForget(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.purge, "purge", false, "rewrite history so that no commit holds the memory")
	c.Flags().StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	c.Flags().StringVar(&o.ifVersion, "if-version", "", "change it only while it is at this `version` (git mem show gives it)")
	return c
}

func runForget(ctx context.Context, env *Env, o *forgetOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	store, m, err := set.Find(o.id)
	var bad *gitstore.DocumentError
	if errors.As(err, &bad) && store != nil {
		// An invalid document: forget (or purge) it by its file name.
		m, err = &gitstore.Memory{ID: bad.ID}, nil
	}
	if o.purge && store != nil && store.Scope.Linked() {
		return fmt.Errorf("%w: %s is in the linked store %s: purge it in a clone of the org store (git mem forget --purge %s there, then git mem sync); every linked copy drops it on its next refresh", memerr.ErrInvalid, o.id, store.Scope, o.id)
	}
	if o.purge {
		return runPurge(ctx, env, set, store, m, o.id, err)
	}
	if err != nil {
		return err
	}
	if _, err := store.Forget(ctx, env.writer(set, o.agent), m.ID, gitstore.IfVersion(o.ifVersion)); err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "forgot %s; git mem history %s still shows it (use --purge for a secret)\n", o.id, m.ID)
	return nil
}

func runPurge(ctx context.Context, env *Env, set *gitstore.Set, store *gitstore.Store, m *gitstore.Memory, arg string, findErr error) error {
	id := strings.ToLower(arg)
	repos := []*gitstore.Repo{}
	switch {
	case findErr == nil:
		id = m.ID
		repos = append(repos, store.Repo)
	case errors.Is(findErr, memerr.ErrNotFound) && len(id) < gitstore.IDHexLen && pendingPurge(set, id) != "":
		// a purge of it was stopped after history lost it: finish that one
		id = pendingPurge(set, id)
		for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
			if r != nil {
				repos = append(repos, r)
			}
		}
	case errors.Is(findErr, memerr.ErrNotFound) && len(id) == gitstore.IDHexLen:
		// Already forgotten: look for it in the history of every store.
		for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
			if r != nil {
				repos = append(repos, r)
			}
		}
	default:
		if errors.Is(findErr, memerr.ErrNotFound) {
			return fmt.Errorf("%w (a forgotten memory can be purged by its full 16-digit id: see git log refs/memory/main)", findErr)
		}
		return findErr
	}
	if findErr == nil {
		// dropped before history is rewritten, so that a purge killed
		// before its scrub below leaves no cache holding the text: the next
		// reader rebuilds them from whatever history then holds
		if err := handoff.DropCaches(set); err != nil {
			return fmt.Errorf("could not remove the caches that hold the text (delete %s and run git mem forget --purge again): %w", index.Dir(set), err)
		}
	}
	var rep *gitstore.PurgeReport
	var repo *gitstore.Repo
	for _, r := range repos {
		// marked first: a purge killed anywhere after this is finished by
		// running it again, although history no longer holds the memory
		pending, err := r.MarkPurge(id)
		if err != nil {
			return fmt.Errorf("could not start the purge in %s: %w", r.Mem().Root(), err)
		}
		got, err := r.Purge(ctx, id)
		if errors.Is(err, memerr.ErrNotFound) && pending {
			got, err = r.FinishPurge(ctx, id)
		}
		if errors.Is(err, memerr.ErrNotFound) {
			if err := r.PurgeFinished(id); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		rep, repo = got, r
		break
	}
	if rep == nil {
		return fmt.Errorf("%w: no memory %s in any memory ref's history", memerr.ErrNotFound, id)
	}
	if rep.Resumed {
		fmt.Fprintf(env.Out, "finishing the purge of %s: no memory ref's history holds it any more\n", gitstore.Clip(id, gitstore.MinShownPrefix))
	} else {
		fmt.Fprintf(env.Out, "purged %s from %s: %d commits rewritten, %d dropped\n", gitstore.Clip(id, gitstore.MinShownPrefix), strings.Join(rep.Refs, ", "), rep.Commits, rep.Dropped)
	}
	// remember the purge, so that a later pull never merges the memory
	// back in, and rebuild the caches that held the text
	if err := handoff.FinishPurge(ctx, set, repo, id); err != nil {
		return err
	}
	if rep.Resumed {
		// the texts went with the history the first run rewrote
		fmt.Fprintln(env.Out, "caches rebuilt without it; run git mem forget --purge on the id again only if you stopped a purge again")
		return nil
	}
	leaks, err := repo.ReachableLeaks(ctx, rep.Texts)
	if err != nil {
		return fmt.Errorf("purged, but could not verify it with git: %w", err)
	}
	if len(leaks) > 0 {
		return fmt.Errorf("%w: purged, but git still reaches %d object(s) holding the text (%s); they belong to refs outside refs/memory/*: find them with git log --all --format=%%H -S<text>", memerr.ErrCorrupt, len(leaks), strings.Join(leaks, ", "))
	}
	fmt.Fprintln(env.Out, "verified: no object reachable from any ref holds the text (git rev-list --objects --all)")
	fmt.Fprintln(env.Err, "warning: copies already pushed to a remote, or fetched by teammates, still hold it until:")
	fmt.Fprintln(env.Err, "git mem sync replaces the remote's memory history (the purge is recorded in it), and each teammate's next git mem pull or sync removes it from their clone.")
	fmt.Fprintln(env.Err, "The old objects stay on disk, unreachable, until: git reflog expire --expire-unreachable=now --all && git gc --prune=now")
	return nil
}

// pendingPurge is the full id of the one unfinished purge (a purge killed
// before it was done) whose id starts with prefix, in any store of set;
// "" when there is none or more than one.
func pendingPurge(set *gitstore.Set, prefix string) string {
	found := ""
	for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
		if r == nil {
			continue
		}
		ids, err := r.PendingPurges()
		if err != nil {
			continue
		}
		for _, id := range ids {
			if strings.HasPrefix(id, prefix) {
				if found != "" && found != id {
					return ""
				}
				found = id
			}
		}
	}
	return found
}
