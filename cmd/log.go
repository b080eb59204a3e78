package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

type logOptions struct {
	limit   int
	private bool
	global  bool
	json    bool
}

func newLogCmd(env *Env) *cobra.Command {
	o := &logOptions{}
	c := &cobra.Command{
		Use:   "log [-n N] [--private|--global] [--json]",
		Short: "The audit log: every change to the memory, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.private && o.global {
				return usagef("--private and --global exclude each other")
			}
			return runLog(cmd.Context(), env, o)
		},
	}
	c.Flags().IntVarP(&o.limit, "max-count", "n", 20, "show at most `N` changes (0: all)")
	c.Flags().BoolVar(&o.private, "private", false, "the private ref")
	c.Flags().BoolVar(&o.global, "global", false, "the personal store")
	c.Flags().BoolVar(&o.json, "json", false, "print a JSON array")
	return c
}

type changeJSON struct {
	Commit  string    `json:"commit"`
	Time    time.Time `json:"time"`
	Op      string    `json:"op"`
	IDs     []string  `json:"ids"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	Author  string    `json:"author"`
	Subject string    `json:"subject"`
}

func runLog(ctx context.Context, env *Env, o *logOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	store, err := readableStore(set, o.private, o.global)
	if err != nil {
		return err
	}
	changes, err := store.Log(ctx, o.limit)
	if err != nil {
		return err
	}
	if o.json {
		out := make([]changeJSON, 0, len(changes))
		for _, c := range changes {
			ids := c.IDs
			if ids == nil {
				ids = []string{}
			}
			out = append(out, changeJSON{c.Commit.String(), c.Time.UTC(), c.Op, ids, c.Agent, c.Session, c.Author, c.Subject})
		}
		return writeJSON(env.Out, out)
	}
	if len(changes) == 0 {
		fmt.Fprintf(env.Err, "%s has no changes yet\n", store.Ref)
	}
	for _, c := range changes {
		who := firstNonEmpty(c.Agent, c.Author)
		fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("%s  %s  %-12s %s", c.Commit.String()[:10], c.Time.Local().Format("2006-01-02 15:04"), who, c.Subject), false))
	}
	return nil
}

// writableStore picks the store a write goes to: --private, --global (or
// the personal store outside a repository), else the project's.
func writableStore(set *gitstore.Set, private, global bool) (*gitstore.Store, error) {
	scope := gitstore.ScopeProject
	switch {
	case private:
		scope = gitstore.ScopePrivate
	case global || !set.InRepo():
		scope = gitstore.ScopePersonal
	}
	return set.Writable(scope)
}

// readableStore picks one store for commands that read a single ref.
func readableStore(set *gitstore.Set, private, global bool) (*gitstore.Store, error) {
	switch {
	case private:
		if set.Repo == nil {
			return nil, fmt.Errorf("%w: --private needs a repository", memerr.ErrNoRepo)
		}
		return gitstore.NewStore(set.Repo, gitstore.RefPrivate, gitstore.ScopePrivate), nil
	case global || set.Repo == nil:
		if set.Personal == nil {
			return nil, fmt.Errorf("%w: your personal store is empty; save to it with git mem add --global", memerr.ErrEmptyStore)
		}
		return gitstore.NewStore(set.Personal, gitstore.RefMain, gitstore.ScopePersonal), nil
	}
	return gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject), nil
}
