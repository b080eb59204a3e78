package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStartWorktreeStatus: a git status started ahead is what the next
// WorktreeStatus returns, the worktree as it was then; the one after runs
// git status again.
func TestStartWorktreeStatus(t *testing.T) {
	ctx := context.Background()
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "before.txt"), []byte("x\n"), 0o644))

	r.StartWorktreeStatus(ctx)
	_, err = r.status() // done before the worktree changes
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "after.txt"), []byte("y\n"), 0o644))
	data, err := r.WorktreeStatus(ctx)
	require.NoError(t, err)
	first := string(data)

	paths, err := r.WorktreeChanges(ctx)
	require.NoError(t, err)
	require.Equal(t, "?? before.txt\x00", first, "the status started ahead, from before the change")
	require.Equal(t, []string{"after.txt", "before.txt"}, paths, "run again, after the change")
}
