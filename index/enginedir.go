package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/git-mem/git-mem/gitstore"
)

// SyncIndex brings the engine's index of the set up to date with its
// stores, building it when it is missing, so that later recalls find it
// current: the MCP server calls it in the background when it starts. It
// does nothing without an engine (or a directory to hold an index);
// rebuilt reports a build from scratch. A recall made meanwhile finds the
// index busy and answers from the snapshot.
func SyncIndex(ctx context.Context, set *gitstore.Set, progress Progress) (rebuilt bool, err error) {
	e, dir := currentEngine(), Dir(set)
	if e == nil || dir == "" {
		return false, nil
	}
	stores := set.Stores()
	if len(stores) == 0 {
		return false, nil
	}
	c, rebuilt, err := e.Open(ctx, dir, stores, progress)
	if err != nil {
		return rebuilt, err
	}
	return rebuilt, c.Close()
}

// removeEngineIndex deletes the engine's index directory, for a rebuild
// made by a binary that links no engine (git-mem, the hook binary): the
// index it leaves would otherwise reflect an older state, and after a purge
// hold the purged text. The binary that has the engine (git-mem-mcp)
// rebuilds it on its next open. The directory is renamed first, so that a
// reader never opens a half-deleted index.
// RemoveIndex removes the search index of set's stores (a cache: the next
// reader that needs it rebuilds it).
func RemoveIndex(set *gitstore.Set) error { return removeEngineIndex(Dir(set)) }

func removeEngineIndex(dir string) error {
	if dir == "" {
		return nil
	}
	old := fmt.Sprintf("%s.old-%d-%d", dir, os.Getpid(), rand.Uint32())
	if err := os.Rename(dir, old); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("removing the search index %s: %w", dir, err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("removing the search index %s: %w", dir, err)
	}
	return nil
}
