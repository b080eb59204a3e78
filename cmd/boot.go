package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/memview"
	"github.com/git-mem/git-mem/surface"
)

type bootOptions struct {
	task   string
	budget int
	json   bool
}

func newBootCmd(env *Env) *cobra.Command {
	o := &bootOptions{}
	c := &cobra.Command{
		Use:   "boot [--budget TOKENS] [--json] [-- TASK]",
		Short: "What a new session should start with: preferences, pinned and relevant memories",
		Long: `Print what a new agent session should start with: preferences and pinned
memories first, then the memories most relevant to the task (after --; a task
of - is read from stdin) and the current branch, within the budget (tokens,
about 4 characters each; at most 8,000 characters). Without a task, the most
trusted recent memories stand in. Memories with trust under 0.40 are left out.`,
		Example: `  git mem boot
  git mem boot -- add refunds to the Stripe webhook handler`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.budget < 0 {
				return usagef("--budget must be a positive number of tokens")
			}
			task, err := textArg(env, args)
			if err != nil {
				return err
			}
			o.task = task
			return runBoot(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.IntVar(&o.budget, "budget", handoff.DefaultBootTokens, "fit the output in `TOKENS` (about 4 characters each)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	return c
}

type bootJSON struct {
	Task     string        `json:"task"`
	Branch   string        `json:"branch,omitempty"`
	Handoff  *memview.View `json:"handoff,omitempty"`
	Standing []surface.Hit `json:"standing"`
	Relevant []surface.Hit `json:"relevant"`
	Newest   []surface.Hit `json:"newest"`
	Text     string        `json:"text"`
	Shown    int           `json:"shown"`
	More     int           `json:"more"`
}

func runBoot(ctx context.Context, env *Env, o *bootOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	opts := handoff.BootOptions{Task: o.task, BudgetTokens: o.budget, Now: env.Now()}
	if set.Repo != nil {
		opts.Branch = set.Repo.Head().Branch
		opts.TouchedBy = set.Repo.WorktreeChangesLater(ctx)
	}
	res, err := handoff.Boot(ctx, set, opts)
	if err != nil {
		return err
	}
	if o.json {
		out := bootJSON{
			Task: o.task, Branch: opts.Branch, Standing: hitsJSON(set, res.Standing, env.Now()), Relevant: hitsJSON(set, res.Relevant, env.Now()),
			Newest: hitsJSON(set, res.Newest, env.Now()), Text: res.Text, Shown: res.Shown, More: res.More,
		}
		if h := res.Handoff; h != nil {
			short, err := set.ShortIDs([]string{h.ID})
			if err != nil {
				return err
			}
			j := toJSON(h, short[h.ID], env.Now())
			out.Handoff = &j
		}
		return writeJSON(env.Out, out)
	}
	if res.Text == "" {
		fmt.Fprintln(env.Err, "no memories to start with yet; save one with git mem add -- TEXT")
		return nil
	}
	fmt.Fprint(env.Out, terminalSafe(res.Text, true))
	return nil
}
