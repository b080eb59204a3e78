package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/index"
)

type reindexOptions struct {
	json bool
}

func init() { register(newReindexCmd) }

func newReindexCmd(env *Env) *cobra.Command {
	o := &reindexOptions{}
	c := &cobra.Command{
		Use:   "reindex [--json]",
		Short: "Rebuild the search index from the memory refs",
		Long: `Rebuild the search index (<git common dir>/mem/index) from scratch. The index
is a cache: recall keeps it up to date by itself and rebuilds it when needed,
and deleting it is always safe. Shows a progress bar on stderr when that is
a terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReindex(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runReindex(ctx context.Context, env *Env, o *reindexOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	start := time.Now()
	bar := newProgress(env, "indexing", o.json)
	var progress index.Progress
	if bar != nil {
		progress = bar.Update
	}
	docs, err := index.Rebuild(ctx, set, progress)
	bar.Done()
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	if o.json {
		return writeJSON(env.Out, map[string]any{"memories": docs, "dir": index.Dir(set), "seconds": took.Seconds()})
	}
	fmt.Fprintf(env.Out, "indexed %d memories in %s (%s)\n", docs, took, index.Dir(set))
	return nil
}
