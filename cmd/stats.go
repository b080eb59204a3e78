package cmd

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/surface"
)

type statsOptions struct {
	json bool
}

func newStatsCmd(env *Env) *cobra.Command {
	o := &statsOptions{}
	c := &cobra.Command{
		Use:   "stats [--json]",
		Short: "Counts per store and type, and where the stores live",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runStats(ctx context.Context, env *Env, o *statsOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	out, err := surface.CountStores(ctx, index.Access{}, set, env.Now())
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, out)
	}
	if !out.InRepo {
		fmt.Fprintln(env.Out, "no git repository here: only your personal store is in scope")
	}
	for _, s := range out.Stores {
		fmt.Fprintf(env.Out, "%-9s %s: %d current, %d superseded or expired\n", s.Scope, s.Ref, s.Current, s.Retired)
		types := make([]string, 0, len(s.ByType))
		for t := range s.ByType {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			fmt.Fprintf(env.Out, "  %-11s %d\n", t, s.ByType[t])
		}
	}
	if set.Personal == nil {
		fmt.Fprintln(env.Out, "personal store: not created yet (git mem add --global creates it)")
	}
	return nil
}
