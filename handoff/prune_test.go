package handoff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestPruneAtMostHourly: expired session files go at a session start, but
// the folder is listed at most once an hour.
func TestPruneAtMostHourly(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	s, err := OpenSessions(repo)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(s.Dir, 0o755))
	expired := func(name string) string {
		p := filepath.Join(s.Dir, name)
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
		old := time.Now().Add(-2 * SessionTTL)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	a := expired("old-a.json")
	ctx := context.Background()
	_, _, err = s.Start(ctx, "s1", "test", time.Now())
	require.NoError(t, err)
	require.NoFileExists(t, a)
	b := expired("old-b.json")
	_, _, err = s.Start(ctx, "s2", "test", time.Now())
	require.NoError(t, err)
	require.FileExists(t, b, "within the hour the folder is not listed again")
	_, _, err = s.Start(ctx, "s3", "test", time.Now().Add(2*pruneEvery))
	require.NoError(t, err)
	require.NoFileExists(t, b)
}
