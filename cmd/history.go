package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/surface"
)

type historyOptions struct {
	id   string
	json bool
}

func newHistoryCmd(env *Env) *cobra.Command {
	o := &historyOptions{}
	c := &cobra.Command{
		Use:   "history [--json] ID",
		Short: "Every version of one memory: commit, time, op, agent, text",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runHistory(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print a JSON array, newest first")
	return c
}

func runHistory(ctx context.Context, env *Env, o *historyOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	store, id, err := set.Locate(o.id) // an invalid document has a history too
	if err != nil {
		return err
	}
	versions, err := store.History(ctx, id)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, surface.NewVersions(versions))
	}
	for _, v := range versions {
		who := firstNonEmpty(v.Agent, v.Author)
		text := "(removed)"
		if v.Invalid != "" {
			text = "(invalid document: " + v.Invalid + ")"
		}
		if v.Memory != nil {
			text = fmt.Sprintf("trust %.2f  %s", v.Memory.EffectiveTrust(v.Time), gitstore.Summary(v.Memory.Text, 100))
		}
		fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("%s  %s  %-9s %-12s %s", v.Commit.String()[:10], v.Time.Local().Format("2006-01-02 15:04"), v.Op, who, text), false))
	}
	return nil
}
