package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

type evalOptions struct {
	dir      string
	json     bool
	ablation bool
	misses   bool
}

func init() { register(newEvalCmd) }

func newEvalCmd(env *Env) *cobra.Command {
	o := &evalOptions{}
	c := &cobra.Command{
		Use:   "eval [--json] [--ablation] [--misses] [DIR]",
		Short: "Measure recall on a labelled dataset (fixtures/eval by default)",
		Long: `Load a labelled dataset (memories.jsonl and queries.jsonl, see
fixtures/eval/README.md) into a scratch store, run every query, and print
recall@3 per kind of query and split, and how many off-topic queries were
rejected. When DIR holds baseline.json, a result under it is an error (exit 1).
--ablation also runs the eval with parts of the analysis and ranking off.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.dir = args[0]
			}
			return runEval(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.BoolVar(&o.ablation, "ablation", false, "also run with stemming, splitting, the thesaurus and re-ranking switched off")
	f.BoolVar(&o.misses, "misses", false, "list the queries that failed")
	return c
}

func runEval(ctx context.Context, env *Env, o *evalOptions) error {
	dir := o.dir
	if dir == "" {
		if set, err := env.openSet(); err == nil && set.Repo != nil && set.Repo.WorkTree != "" {
			dir = filepath.Join(set.Repo.WorkTree, "fixtures", "eval")
		}
		if dir == "" {
			return fmt.Errorf("%w: no dataset directory; give one, e.g. git mem eval fixtures/eval", gitstore.ErrInvalid)
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	ds, err := index.LoadDataset(dir)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "git-mem-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	rep, err := index.RunEval(ctx, ds, index.EvalOptions{Dir: scratch})
	if err != nil {
		return err
	}
	var names []string
	var abl []*index.EvalReport
	if o.ablation {
		for _, a := range index.Ablations {
			r, err := index.RunEval(ctx, ds, index.EvalOptions{Ablation: a.Off})
			if err != nil {
				return err
			}
			names = append(names, a.Name)
			abl = append(abl, r)
		}
	}
	var problems []string
	base, err := index.LoadBaseline(filepath.Join(dir, "baseline.json"))
	switch {
	case err == nil:
		problems = base.Check(rep)
	case errors.Is(err, os.ErrNotExist):
	default:
		return err
	}
	if o.json {
		out := map[string]any{"rows": rep.Rows, "below_baseline": problems}
		if o.misses {
			out["misses"] = rep.Misses
		}
		if o.ablation {
			ab := map[string][]index.EvalRow{}
			for i, r := range abl {
				ab[names[i]] = r.Rows
			}
			out["ablation"] = ab
		}
		if err := writeJSON(env.Out, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Out, "%d memories, %d queries (%s)\n\n", len(ds.Memories), len(ds.Queries), dir)
		fmt.Fprint(env.Out, index.FormatEval(rep))
		if o.ablation {
			fmt.Fprintf(env.Out, "\nablation (all splits):\n%s", index.FormatAblation(names, abl))
		}
		if o.misses {
			fmt.Fprintln(env.Out, "\nmisses:")
			for _, m := range rep.Misses {
				fmt.Fprintf(env.Out, "  [%s %s] %q: got %v; %s\n", m.Query.Kind, m.Query.Split, m.Query.Query, m.Got, m.Reason)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("eval below the baseline in %s:\n  %s", filepath.Join(dir, "baseline.json"), joinLines(problems))
	}
	return nil
}

func joinLines(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += "\n  "
		}
		s += x
	}
	return s
}
