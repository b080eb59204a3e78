package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type listOptions struct {
	filter  gitstore.Filter
	asOf    string
	validAt string
	json    bool
}

func init() { register(newListCmd) }

func newListCmd(env *Env) *cobra.Command {
	o := &listOptions{}
	c := &cobra.Command{
		Use:   "list [--type T] [--all] [--json]",
		Short: "List current memories (project, private and personal), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.filter.Type != "" {
				if err := gitstore.ValidateType(o.filter.Type); err != nil {
					return err
				}
			}
			return runList(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.filter.Type, "type", "t", "", "only this `type`")
	f.BoolVar(&o.filter.All, "all", false, "include superseded and expired memories")
	f.StringVar(&o.asOf, "as-of", "", "the store as it was at `WHEN` (RFC 3339 time, YYYY-MM-DD, or a memory commit)")
	f.StringVar(&o.validAt, "valid-at", "", "what was true at `WHEN`, superseded facts included")
	f.BoolVar(&o.json, "json", false, "print a JSON array")
	return c
}

func runList(ctx context.Context, env *Env, o *listOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	o.filter.Now = env.Now()
	var ms []*gitstore.Memory
	if o.asOf != "" || o.validAt != "" {
		ms, err = listAt(ctx, set, o)
	} else {
		ms, err = set.List(o.filter)
	}
	if err != nil {
		return err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	short := gitstore.ShortIDs(ids)
	if o.json {
		out := make([]gitstore.View, 0, len(ms))
		for _, m := range ms {
			out = append(out, toJSON(m, short[m.ID], o.filter.Now))
		}
		return writeJSON(env.Out, out)
	}
	if len(ms) == 0 {
		fmt.Fprintln(env.Err, "no memories yet; save one with git mem add -- TEXT")
		return nil
	}
	for _, m := range ms {
		fmt.Fprintln(env.Out, memoryLine(m, short[m.ID], o.filter.Now))
	}
	return nil
}

// listAt applies --as-of and --valid-at. A commit-ish in --as-of names a
// commit of the project memory ref, so only that store is read.
func listAt(ctx context.Context, set *gitstore.Set, o *listOptions) ([]*gitstore.Memory, error) {
	if o.validAt != "" {
		t, err := parseWhen(o.validAt, o.filter.Now)
		if err != nil {
			return nil, err
		}
		o.filter.ValidAt = &t
	}
	if o.asOf == "" {
		return set.List(o.filter)
	}
	if t, err := parseWhen(o.asOf, o.filter.Now); err == nil {
		o.filter.AsOf = &t
		return set.List(o.filter)
	}
	stores := set.Stores()
	if len(stores) == 0 {
		return nil, nil
	}
	store := stores[0]
	commit, err := store.ResolveCommit(ctx, o.asOf)
	if err != nil {
		return nil, err
	}
	rd, err := store.ReadAt(commit)
	if err != nil {
		return nil, err
	}
	all, err := rd.All()
	if err != nil {
		return nil, err
	}
	var out []*gitstore.Memory
	for _, m := range all {
		if o.filter.Keep(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// noteOutsideRepo tells the user that a read outside any repository shows the personal store.
func noteOutsideRepo(env *Env, set *gitstore.Set) {
	if !set.InRepo() {
		fmt.Fprintln(env.Err, "no git repository here: showing your personal store only")
	}
}
