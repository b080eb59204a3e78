package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type pushOptions struct {
	remote string
	agent  string
	force  bool
	json   bool
}

func newPushCmd(env *Env) *cobra.Command {
	o := &pushOptions{}
	c := &cobra.Command{
		Use:   "push [REMOTE] [--force]",
		Short: "Share refs/memory/main with the remote (merging first when it moved)",
		Long: `Push refs/memory/main to the remote's refs/memory/main. When the remote has
memory this repository lacks, git rejects the push; git mem push then pulls,
merges and pushes again (up to 8 times). It never overwrites the remote unless
you say --force.

--force overwrites the remote's memory (needed after git mem forget --purge,
which rewrites history). It still pushes with --force-with-lease against the
value read from the remote just before, so a push that lands in between is not
lost silently. The pre-push hook is skipped unless git config mem.pushVerify
is true.

` + remoteHelp,
		Args: remoteArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.remote = args[0]
			}
			return runPush(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.force, "force", false, "overwrite the remote's memory (after forget --purge)")
	c.Flags().StringVar(&o.agent, "agent", "", "record a merge as made by this `agent`")
	c.Flags().BoolVar(&o.json, "json", false, "print what happened as JSON")
	return c
}

func runPush(ctx context.Context, env *Env, o *pushOptions) error {
	set, rem, err := openRemote(ctx, env, o.remote)
	if err != nil {
		return err
	}
	res, err := set.Repo.Push(ctx, env.writer(set, o.agent), rem, gitstore.PushOptions{
		TransportOptions: env.transport(), Force: o.force, Verify: pushVerify(set)})
	if err != nil {
		return err
	}
	if err := afterPulls(ctx, env, set, res.Pulls...); err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, pushJSONOf(res))
	}
	writePush(env.Out, res)
	return nil
}

func pushJSONOf(p *gitstore.PushResult) map[string]any {
	hex := func(h fmt.Stringer, zero bool) string {
		if zero {
			return ""
		}
		return h.String()
	}
	merges := []any{}
	for _, pl := range p.Pulls {
		merges = append(merges, pullJSON(pl))
	}
	return map[string]any{"remote": p.Remote.Display, "old": hex(p.Old, p.Old.IsZero()), "new": hex(p.New, p.New.IsZero()),
		"up_to_date": p.UpToDate, "forced": p.Forced, "merges": merges}
}

// writePush prints what a push did.
func writePush(w io.Writer, p *gitstore.PushResult) {
	name := p.Remote.Display
	for _, pl := range p.Pulls {
		fmt.Fprintf(w, "%s had new memory: ", name)
		writePull(w, pl)
	}
	newShort := p.New.String()[:7]
	switch {
	case p.UpToDate:
		fmt.Fprintf(w, "%s already has %s at %s: nothing to push\n", name, gitstore.RefMain, newShort)
	case p.Forced:
		old := "nothing"
		if !p.Old.IsZero() {
			old = p.Old.String()[:7]
		}
		fmt.Fprintf(w, "forced %s to %s's %s: it was %s, now %s\n", gitstore.RefMain, name, gitstore.RefMain, old, newShort)
	case p.Old.IsZero():
		fmt.Fprintf(w, "pushed %s to %s (%s, new there)\n", gitstore.RefMain, name, newShort)
	default:
		fmt.Fprintf(w, "pushed %s to %s (%s..%s)\n", gitstore.RefMain, name, p.Old.String()[:7], newShort)
	}
}
