package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/evaluation"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
	"github.com/git-mem/git-mem/memerr"
)

type evalOptions struct {
	dir      string
	baseline string
	json     bool
	ablation bool
	misses   string
	projects []string
	splits   []string
	noCrowd  bool
	also     bool
	undated  bool
	noKeys   bool
}

func newEvalCmd(env *Env) *cobra.Command {
	o := &evalOptions{}
	c := &cobra.Command{
		Use:   "eval [--json] [--ablation] [--misses SPLIT] [--project P]... [--split S]... [--baseline FILE] [DIR]",
		Short: "Measure recall on the labelled eval (fixtures/eval by default) or on recall sets",
		Long: `Load each project of a labelled eval (a directory per project with
memories.jsonl and queries.jsonl, and distractors/memories.jsonl, see
fixtures/eval/README.md) into a scratch store, alone and with the unrelated
memories, run every query at both operating points, and print per project,
kind of query and split: recall@3 at the explicit point (off-topic: the share
that got nothing labelled better than weak), and the injection point's
precision and recall. When DIR holds baseline.json, a result under it is an
error (exit 1); with --split, under the floors of those splits. --ablation
also runs the eval with parts of the analysis and ranking off.

When DIR holds recall sets instead (one JSON file a set, with memories,
queries and several relevant memories a query, in directories named after
their source), every query is recalled four ways: plain BM25, the ranking
with no threshold, explicit recall at its defaults and the prompt hook's
injection point; the report gives recall@5 and hit@5 per source, set and
kind, the share of the ranking's recall explicit recall keeps, off-topic
queries' share with nothing (and nothing better than weak), and the
injection point's precision. --split tune or test runs half of the queries;
--baseline FILE holds the floors of a run of every query, and a result under
them is an error.`,
		Args:   cobra.MaximumNArgs(1),
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.dir = args[0]
			}
			return runEval(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringVar(&o.baseline, "baseline", "", "recall sets: the floors to hold the run to (in the format of fixtures/eval/sets-baseline.json)")
	f.BoolVar(&o.ablation, "ablation", false, "also run with stemming, splitting, the thesaurus, re-ranking and the confidence switched off")
	f.StringVar(&o.misses, "misses", "", "list the queries of this split (or all) that failed at the explicit point")
	f.StringSliceVar(&o.projects, "project", nil, "run only this project (repeatable)")
	f.StringSliceVar(&o.splits, "split", nil, "run only this split (repeatable)")
	f.BoolVar(&o.noCrowd, "no-crowd", false, "skip the runs with the unrelated memories")
	f.BoolVar(&o.also, "phrasings", false, "recall each query with its other phrasings (also), fused")
	f.BoolVar(&o.noKeys, "no-keys", false, "write the memories without their retrieval keys")
	f.BoolVar(&o.undated, "undated", false, "write every memory at the eval's now, ignoring age_days (what recency and decay do)")
	return c
}

func runEval(ctx context.Context, env *Env, o *evalOptions) error {
	dir := o.dir
	if dir == "" {
		if set, err := env.openSet(); err == nil && set.Repo != nil && set.Repo.WorkTree != "" {
			dir = filepath.Join(set.Repo.WorkTree, "fixtures", "eval")
		}
		if dir == "" {
			return fmt.Errorf("%w: no dataset directory; give one, e.g. git mem eval fixtures/eval", memerr.ErrInvalid)
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	if !dataset.IsSuite(dir) {
		return runEvalSets(ctx, env, o, dir)
	}
	suite, err := dataset.LoadSuite(dir)
	if err != nil {
		return err
	}
	eo := evaluation.Options{Projects: o.projects, Splits: o.splits, NoCrowd: o.noCrowd, Phrasings: o.also, Undated: o.undated, NoKeys: o.noKeys}
	rep, err := evaluation.Run(ctx, suite, eo)
	if err != nil {
		return err
	}
	var names []string
	var abl []*evaluation.Report
	if o.ablation {
		for _, a := range evaluation.Ablations {
			ao := eo
			ao.NoCrowd, ao.Ablation = true, index.Ablation(a.Off)
			r, err := evaluation.Run(ctx, suite, ao)
			if err != nil {
				return err
			}
			names = append(names, a.Name)
			abl = append(abl, r)
		}
	}
	var problems []string
	if len(o.projects) == 0 && !o.noCrowd && !o.also && !o.undated && !o.noKeys {
		base, err := evaluation.LoadBaseline(filepath.Join(dir, "baseline.json"))
		if len(o.splits) > 0 {
			// a run of some splits is held to their floors only
			base = base.Only(o.splits)
		}
		switch {
		case err == nil:
			problems = base.Check(rep)
		case errors.Is(err, os.ErrNotExist):
		default:
			return err
		}
	}
	var misses []evaluation.Miss
	for _, m := range rep.Misses {
		if o.misses == "all" || o.misses == m.Query.Split {
			misses = append(misses, m)
		}
	}
	if o.json {
		out := map[string]any{"rows": rep.Rows, "below_baseline": problems}
		if o.misses != "" {
			out["misses"] = misses
		}
		if o.ablation {
			ab := map[string][]evaluation.Row{}
			for i, r := range abl {
				ab[names[i]] = r.Rows
			}
			out["ablation"] = ab
		}
		if err := writeJSON(env.Out, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Out, "%d projects, %d unrelated memories (%s)\n\n", len(suite.Projects), len(suite.Distractors), dir)
		fmt.Fprint(env.Out, evaluation.Format(rep))
		if o.ablation {
			fmt.Fprintf(env.Out, "ablation (explicit point, every project and split, alone):\n%s", evaluation.FormatAblation(names, abl))
		}
		if o.misses != "" {
			fmt.Fprintln(env.Out, "\nmisses:")
			for _, m := range misses {
				crowd := ""
				if m.Crowded {
					crowd = " crowded"
				}
				fmt.Fprintf(env.Out, "  [%s%s %s %s] %q: got %v; %s\n", m.Project, crowd, m.Query.Kind, m.Query.Split, m.Query.Query, m.Got, m.Reason)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("eval below the baseline in %s:\n  %s", filepath.Join(dir, "baseline.json"), strings.Join(problems, "\n  "))
	}
	return nil
}

// runEvalSets measures recall on the recall sets under dir.
func runEvalSets(ctx context.Context, env *Env, o *evalOptions, dir string) error {
	sets, err := dataset.LoadSets(dir)
	if err != nil {
		return err
	}
	rep, err := evaluation.RunSets(ctx, sets, evaluation.SetOptions{Splits: o.splits})
	if err != nil {
		return err
	}
	var problems []string
	if o.baseline != "" && len(o.splits) > 0 {
		// the floors are of every query: half of them is not held to them
		fmt.Fprintln(env.Err, "git mem eval: a run of some splits is not checked against --baseline")
	} else if o.baseline != "" {
		path := o.baseline
		if !filepath.IsAbs(path) {
			path = filepath.Join(env.Dir, path)
		}
		base, err := evaluation.LoadSetBaseline(path)
		if err != nil {
			return fmt.Errorf("%w: the baseline: %v", memerr.ErrInvalid, err)
		}
		problems = base.Check(rep)
	}
	if o.json {
		if err := writeJSON(env.Out, map[string]any{"rows": rep.Rows, "below_baseline": problems}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Out, "%d recall sets (%s)\n\n%s", len(sets), dir, evaluation.FormatSets(rep))
	}
	if len(problems) > 0 {
		return fmt.Errorf("eval below the baseline in %s:\n  %s", o.baseline, strings.Join(problems, "\n  "))
	}
	return nil
}
