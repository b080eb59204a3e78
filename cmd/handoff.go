package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

type handoffOptions struct {
	in    handoff.HandoffInput
	agent string
	json  bool
}

func newHandoffCmd(env *Env) *cobra.Command {
	o := &handoffOptions{}
	c := &cobra.Command{
		Use:   "handoff [--done TEXT] [--next TEXT] [--warn TEXT]... [--json]",
		Short: "Leave a handoff for the next session on this branch (or show the current one)",
		Long: `Leave a handoff for the next session on the current branch: what was done, what
comes next, and what to watch out for. It is stored on refs/memory/main as a
memory of type handoff tagged branch:<name>, replaces (supersedes) the branch's
previous handoff, and is shown first by the next session-start hook on that
branch; on other branches it is only shown labelled as another branch's.

Without --done, --next or --warn, print the current handoff of the branch.`,
		Example: `  git mem handoff --done "refund webhook handled" --next "add the retry queue" --warn "tests need STRIPE_KEY unset"
  git mem handoff`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHandoff(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.in.Done, "done", "", "what this session finished")
	f.StringVar(&o.in.Next, "next", "", "what the next session should do")
	f.StringArrayVar(&o.in.Warnings, "warn", nil, "a trap the next session should know about (repeatable)")
	f.StringVar(&o.agent, "agent", "", "record the handoff as written by `AGENT`")
	f.BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runHandoff(ctx context.Context, env *Env, o *handoffOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	if set.Repo == nil {
		return fmt.Errorf("%w: a handoff belongs to a branch of a repository; run it inside one (or pass -C PATH)", memerr.ErrNoRepo)
	}
	now := env.Now()
	if handoff.HandoffText(o.in) == "" {
		m, err := handoff.Latest(ctx, set, "")
		if err != nil {
			return err
		}
		if m == nil {
			if o.json {
				return writeJSON(env.Out, nil)
			}
			fmt.Fprintln(env.Err, "no handoff for this branch yet; leave one with git mem handoff --done TEXT --next TEXT")
			return nil
		}
		return printHandoff(env, set, m, o.json)
	}
	m, err := handoff.Save(ctx, set, env.writer(set, o.agent), o.in, index.Access{})
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, toJSON(m, shortOf(set, m), now))
	}
	fmt.Fprintln(env.Out, shortOf(set, m))
	return nil
}

func printHandoff(env *Env, set *gitstore.Set, m *gitstore.Memory, asJSON bool) error {
	short := shortOf(set, m)
	if asJSON {
		return writeJSON(env.Out, toJSON(m, short, env.Now()))
	}
	fmt.Fprintf(env.Out, "%s\n%s\n", terminalSafe(fmt.Sprintf("handoff %s on %s, %s by %s", short, handoff.HandoffBranch(m), m.Created.Local().Format("2006-01-02 15:04"), firstNonEmpty(m.Agent, m.Author)), false), terminalSafe(m.Text, true))
	return nil
}

// shortOf is the display id of a memory of the set.
func shortOf(set *gitstore.Set, m *gitstore.Memory) string { return displayID(set, m.ID) }
