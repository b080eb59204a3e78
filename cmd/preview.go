package cmd

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/surface"
)

type previewOptions struct {
	agent string
	json  bool
}

func newPreviewCmd(env *Env) *cobra.Command {
	o := &previewOptions{}
	c := &cobra.Command{
		Use:   "preview [--agent claude|codex|cursor|gemini|qwen|copilot|opencode] [--json]",
		Short: "Show what the next session-start hook would inject here, and why",
		Long: `Print exactly the text the session-start hook would inject into a new session
in this directory — the latest handoff for the branch, preferences and pinned
memories, the memories most relevant to the branch and the files being
changed — followed by its size against the cap and why each part is there.
Nothing is written. With --agent, print the hook's JSON output for that agent
instead.`,
		Example: `  git mem preview
  git mem preview --agent codex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.agent != "" && agents.Normalize(o.agent) == "" {
				return usagef("unknown agent %q; use one of %s", o.agent, strings.Join(agents.Names, ", "))
			}
			return runPreview(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "print the hook output `AGENT` would receive")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

type previewJSON struct {
	Branch   string        `json:"branch"`
	Touched  []string      `json:"touched"`
	Query    string        `json:"query"`
	Handoff  string        `json:"handoff,omitempty"`
	Other    string        `json:"other_branch_handoff,omitempty"`
	Standing []surface.Hit `json:"standing"`
	Relevant []surface.Hit `json:"relevant"`
	Text     string        `json:"text"`
	Chars    int           `json:"chars"`
	Cap      int           `json:"cap"`
	Shown    int           `json:"shown"`
	More     int           `json:"more"`
	Skipped  []string      `json:"skipped"`
}

func runPreview(ctx context.Context, env *Env, o *previewOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	if set.Repo == nil || set.Repo.WorkTree == "" {
		return fmt.Errorf("%w: session-start hooks run in a repository's worktree; run git mem preview inside one", memerr.ErrNoRepo)
	}
	opts := hooks.StartOptionsFor(ctx, set.Repo, env.Now())
	res, err := handoff.SessionStart(ctx, set, opts)
	if err != nil {
		return err
	}
	chars := utf8.RuneCountInString(res.Text)
	if o.agent != "" {
		out, err := hooks.Output(agents.Normalize(o.agent), agents.EventSessionStart, res.Text)
		if err != nil {
			return err
		}
		if len(out) > 0 {
			fmt.Fprintln(env.Out, string(out))
		}
		return nil
	}
	if o.json {
		pj := previewJSON{Branch: opts.Branch, Touched: opts.Touched, Query: res.Query, Standing: hitsJSON(set, res.Standing, env.Now()),
			Relevant: hitsJSON(set, res.Relevant, env.Now()), Text: res.Text, Chars: chars, Cap: res.Limit, Shown: len(res.IDs), More: res.More, Skipped: res.Skipped}
		if pj.Touched == nil {
			pj.Touched = []string{}
		}
		if pj.Skipped == nil {
			pj.Skipped = []string{}
		}
		if res.Handoff != nil {
			pj.Handoff = res.Handoff.ID
		}
		if res.Other != nil {
			pj.Other = res.Other.ID
		}
		return writeJSON(env.Out, pj)
	}
	if res.Text == "" {
		fmt.Fprintln(env.Out, "(nothing would be injected: no memories with trust 0.40 or more yet)")
	} else {
		fmt.Fprint(env.Out, terminalSafe(res.Text, true))
	}
	w := env.Err
	fmt.Fprintf(w, "\n--- %d of %d characters; %d memories shown, %d more left out\n", chars, res.Limit, len(res.IDs), res.More)
	branch := opts.Branch
	if branch == "" {
		branch = "(detached HEAD)"
	}
	switch {
	case res.Handoff != nil:
		fmt.Fprintf(w, "handoff:  %s, the latest for branch %s\n", displayID(set, res.Handoff.ID), branch)
	case res.Other != nil:
		fmt.Fprintf(w, "handoff:  none for %s; %s of branch %s shown, labelled as another branch's\n", branch, displayID(set, res.Other.ID), terminalSafe(handoff.HandoffBranch(res.Other), false))
	default:
		fmt.Fprintf(w, "handoff:  none for %s (git mem handoff leaves one)\n", branch)
	}
	fmt.Fprintf(w, "standing: %d preference(s) and pinned memories\n", len(res.Standing))
	if strings.TrimSpace(res.Query) != "" {
		fmt.Fprintf(w, "relevant: %d, for the branch name and the %d file(s) being changed (query: %s)\n", len(res.Relevant), len(opts.Touched), gitstore.Summary(res.Query, 80))
	} else {
		fmt.Fprintf(w, "relevant: %d recent, trusted memories (no branch words or changed files to search for)\n", len(res.Relevant))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "left out: %s\n", s)
	}
	return nil
}
