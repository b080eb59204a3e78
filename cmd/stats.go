package cmd

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/index"
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

type storeStats struct {
	Scope   string         `json:"scope"`
	Ref     string         `json:"ref"`
	GitDir  string         `json:"git_dir"`
	Tip     string         `json:"tip,omitempty"`
	Current int            `json:"current"`
	Retired int            `json:"retired"`
	ByType  map[string]int `json:"by_type"`
}

type statsJSON struct {
	InRepo bool         `json:"in_repo"`
	Stores []storeStats `json:"stores"`
}

func runStats(ctx context.Context, env *Env, o *statsOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	now := env.Now()
	out := statsJSON{InRepo: set.InRepo(), Stores: []storeStats{}}
	counts, err := index.Count(ctx, set, now)
	if err != nil {
		return err
	}
	for _, st := range set.Stores() {
		tip, err := st.Tip()
		if err != nil {
			return err
		}
		s := storeStats{Scope: string(st.Scope), Ref: st.Ref, GitDir: st.Repo.GitDir, ByType: map[string]int{}}
		if !tip.IsZero() {
			s.Tip = tip.String()
		}
		if n := counts[st.Scope]; n != nil {
			s.Current, s.Retired, s.ByType = n.Current, n.Retired, n.ByType
		}
		out.Stores = append(out.Stores, s)
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
