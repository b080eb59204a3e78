package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/index"
)

type reindexOptions struct {
	json bool
}

func newReindexCmd(env *Env) *cobra.Command {
	o := &reindexOptions{}
	c := &cobra.Command{
		Use:   "reindex [--json]",
		Short: "Rebuild the search index from the memory refs",
		Long: `Rebuild the recall snapshot (<git common dir>/mem/recall.snapshot), which
git mem recall and the hooks read, from scratch, and remove the MCP server's
search index (<git common dir>/mem/index), which the server (git-mem-mcp)
builds again in the background when it next starts. Both are caches: recall
keeps them up to date by itself and rebuilds them when needed, and deleting
them is always safe. With embeddings configured (git config
mem.embed.url), also embeds every current memory without a vector and drops
the vectors no memory needs. Shows a progress bar on stderr when that is
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
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w\nnothing was reindexed: git mem reindex writes under %s; make it writable (a read-only .git, or another user's) and run it again", err, filepath.Dir(index.Dir(set)))
	}
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	// embeddings, when configured: the memories without a vector are
	// embedded; an endpoint that fails leaves the lexical index rebuilt
	bar = newProgress(env, "embedding", o.json)
	progress = nil
	if bar != nil {
		progress = bar.Update
	}
	vec, verr := index.FillVectors(ctx, set, progress)
	bar.Done()
	if o.json {
		out := map[string]any{"memories": docs, "snapshot": index.SnapshotPath(set), "dir": index.Dir(set), "seconds": took.Seconds()}
		if vec != nil {
			v := map[string]any{"model": vec.Model, "memories": vec.Memories, "cached": vec.Cached, "embedded": vec.Embedded, "removed": vec.Removed}
			if verr != nil {
				v["error"] = verr.Error()
			}
			out["vectors"] = v
		}
		return writeJSON(env.Out, out)
	}
	fmt.Fprintf(env.Out, "indexed %d memories in %s (%s)\n", docs, took, index.SnapshotPath(set))
	if vec != nil {
		fmt.Fprintf(env.Out, "embedded %d memories with %s: %d of %d current memories have a vector\n", vec.Embedded, terminalSafe(vec.Model, false), vec.Cached, vec.Memories)
	}
	if verr != nil {
		// the error may quote the endpoint's own answer
		fmt.Fprintf(env.Err, "git mem: embeddings not filled: %s\nrecall stays lexical for the memories without a vector; run git mem reindex again when the model server answers\n", terminalSafe(verr.Error(), false))
	}
	return nil
}
