package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/surface"
)

type recallOptions struct {
	query   string
	limit   int
	budget  int
	asOf    string
	validAt string
	all     bool
	json    bool
	// minConfidence, when the flag is given, replaces the explicit
	// point's threshold (0: none).
	minConfidence    float64
	minConfidenceSet bool
	// also are other phrasings of the same need.
	also []string
}

func newRecallCmd(env *Env) *cobra.Command {
	o := &recallOptions{}
	c := &cobra.Command{
		Use:   "recall [--limit N] [--budget TOKENS] [--min-confidence C] [--also QUERY]... [--as-of WHEN] [--valid-at WHEN] [--all] [--json] -- QUERY",
		Short: "Find the memories relevant to a question, most relevant first",
		Long: `Find the memories relevant to a question, a prompt, an error message or a
path. The query is free text: it is never read as search syntax; a query of
- is read from stdin (a pasted error log, say). Nothing is printed when
nothing is relevant (--json prints []).

Every memory that shares the query's distinctive words is returned, best
first, with its confidence (how likely it is what the query is about, 0 to
1) named as a "strong", "likely" or "weak" match: strong is what the prompt
hook would inject, likely is more often right than not, weak shares the
words and is worth a look. A question nothing shares words with gets
nothing. --min-confidence C leaves out memories under C (0: none left out).
--also adds another phrasing of the same need (up to 4): each is recalled
and the results are merged, memories several phrasings find first.
Ranking: text relevance x sqrt(confidence) x (0.5 + trust) x recency, with
a boost for memories written on the current branch and for memories about
files being changed.
Superseded and expired memories are left out unless --all or --valid-at.
A memory whose files changed since it was written is marked possibly stale.

--budget is in tokens, estimated at 4 characters a token; memories that do
not fit are skipped, and the last line says how many more matched.`,
		Example: `  git mem recall -- how do we deploy
  git mem recall --json -- "TypeError: cannot read properties of undefined (reading 'id')"
  git mem recall --valid-at 2026-03-01 -- which email provider`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give the question after --, e.g. git mem recall -- how do we deploy")
			}
			if o.limit < 0 {
				return usagef("--limit must be a positive number")
			}
			if o.budget < 0 {
				return usagef("--budget must be a positive number of tokens")
			}
			if len(o.also) >= index.MaxPhrasings {
				return usagef("--also may be given at most %d times", index.MaxPhrasings-1)
			}
			if o.minConfidence < 0 || o.minConfidence > 1 {
				return usagef("--min-confidence must be between 0 and 1, e.g. 0.3")
			}
			o.minConfidenceSet = cmd.Flags().Changed("min-confidence")
			query, err := textArg(env, args)
			if err != nil {
				return err
			}
			o.query = query
			return runRecall(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.IntVarP(&o.limit, "limit", "n", index.DefaultLimit, "at most `N` memories")
	f.IntVar(&o.budget, "budget", 0, "fit the output in `TOKENS` (about 4 characters each)")
	f.StringVar(&o.asOf, "as-of", "", "search the store as it was at `WHEN` (RFC 3339 time, YYYY-MM-DD, or a memory commit)")
	f.StringVar(&o.validAt, "valid-at", "", "what was true at `WHEN`, superseded facts included")
	f.BoolVar(&o.all, "all", false, "include superseded and expired memories")
	f.StringArrayVar(&o.also, "also", nil, "another phrasing of the same need (repeatable, up to 4)")
	f.Float64Var(&o.minConfidence, "min-confidence", 0, "leave out memories under confidence `C` (0 to 1; 0: none)")
	f.BoolVar(&o.json, "json", false, "print a JSON array")
	return c
}

// hitsJSON is the --json shape of recalled memories (surface.Hit, the shape
// memory_recall returns too); scripts depend on it.
func hitsJSON(set *gitstore.Set, hits []index.Hit, now time.Time) []surface.Hit {
	short := index.ShortIDs(set, hits)
	out := make([]surface.Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, surface.NewHit(h, short[h.Memory.ID], now))
	}
	return out
}

func runRecall(ctx context.Context, env *Env, o *recallOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	opts := index.Options{Query: o.query, Limit: o.limit, All: o.all, Now: env.Now(), Also: o.also}
	if o.minConfidenceSet {
		opts.MinConfidence = &o.minConfidence
	}
	if o.validAt != "" {
		t, err := gitstore.ParseWhen(o.validAt, opts.Now)
		if err != nil {
			return err
		}
		opts.ValidAt = &t
	}
	if o.asOf != "" {
		t, err := asOfTime(ctx, set, o.asOf, opts.Now)
		if err != nil {
			return err
		}
		opts.AsOf = &t
	}
	if set.Repo != nil {
		opts.Branch = set.Repo.Head().Branch
		opts.TouchedBy = set.Repo.WorktreeChangesLater(ctx)
	}
	if env.Terminal {
		opts.Progress = indexProgress(env)
	}
	res, err := index.Recall(ctx, set, opts)
	if err != nil {
		return err
	}
	if res.Fallback != "" && env.Getenv("GIT_MEM_DEBUG") != "" {
		fmt.Fprintf(env.Err, "git mem: index not used (%s); scanned the store instead\n", res.Fallback)
	}
	if strings.HasPrefix(res.Embedding, "lexical only: ") {
		// the reason may quote the endpoint's own answer
		fmt.Fprintf(env.Err, "git mem: embeddings not used, %s\n", terminalSafe(res.Embedding, false))
	}
	more := fmt.Sprintf("git mem recall --limit %d -- %s", max(o.limit*3, 30), shellQuote(o.query))
	text, shown := index.Pack(set, res, o.budget, 0, more)
	if o.json {
		if o.budget == 0 {
			shown = res.Hits
		}
		return writeJSON(env.Out, hitsJSON(set, shown, env.Now()))
	}
	if len(res.Hits) == 0 {
		if len(res.Terms) == 0 {
			fmt.Fprintln(env.Err, "nothing to search for: the query has no words to match (only stopwords or symbols)")
		} else {
			fmt.Fprintln(env.Err, "nothing relevant found")
		}
		return nil
	}
	fmt.Fprint(env.Out, terminalSafe(text, true))
	return nil
}

// indexProgress reports on stderr how the first build of the search index
// advances, so that a first recall in a large store does not look stuck.
func indexProgress(env *Env) index.Progress {
	shown := false
	return func(done, total int) {
		if total < 2000 && !shown {
			return
		}
		shown = true
		fmt.Fprintf(env.Err, "\rbuilding the search index: %d/%d memories", done, total)
		if done == total {
			fmt.Fprintln(env.Err)
		}
	}
}

// asOfTime reads --as-of: a time, a date, or a commit of the project memory
// ref (taken as that commit's time, applied to every store).
func asOfTime(ctx context.Context, set *gitstore.Set, when string, now time.Time) (time.Time, error) {
	if t, err := gitstore.ParseWhen(when, now); err == nil {
		return t, nil
	}
	stores := set.Stores()
	if len(stores) == 0 {
		return time.Time{}, fmt.Errorf("%w: %q is not a time and there is no memory ref to find it in", memerr.ErrInvalid, when)
	}
	h, err := stores[0].ResolveCommit(ctx, when)
	if err != nil {
		return time.Time{}, err
	}
	return stores[0].Repo.CommitTime(h)
}

// shellQuote quotes a query for the hint line so it can be pasted back.
func shellQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = string([]rune(s)[:min(len([]rune(s)), 80)])
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" -_./", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
