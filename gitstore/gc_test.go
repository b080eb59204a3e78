package gitstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gittest"
)

// gcRepo is a repository with n reachable loose objects in objects/17 (the
// directory git estimates the loose-object count from), and the extra git
// config given.
func gcRepo(t *testing.T, n int, config ...string) *Repo {
	t.Helper()
	dir := t.TempDir()
	gittest.Run(t, dir, "init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	for i := 0; i+1 < len(config); i += 2 {
		gittest.Run(t, dir, "config", config[i], config[i+1])
	}
	var listing strings.Builder
	for i, found := 0, 0; found < n; i++ {
		content := fmt.Sprintf("object %d\n", i)
		sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
		if h := hex.EncodeToString(sum[:]); strings.HasPrefix(h, "17") {
			p := filepath.Join(dir, "o")
			require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
			require.Equal(t, h, strings.TrimSpace(gittest.Run(t, dir, "hash-object", "-w", p)))
			fmt.Fprintf(&listing, "100644 blob %s\tf%d\n", h, found)
			found++
		}
	}
	tree := strings.TrimSpace(runGitStdin(t, dir, listing.String(), "mktree"))
	commit := strings.TrimSpace(gittest.Run(t, dir, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit-tree", "-m", "objects", tree))
	gittest.Run(t, dir, "update-ref", "refs/memory/main", commit)
	r, err := Open(dir)
	require.NoError(t, err)
	return r
}

func runGitStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

func looseIn17(t *testing.T, r *Repo) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(r.CommonDir, "objects", "17"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return len(entries)
}

// TestAutoGC: past gc.auto's estimate "git gc --auto" packs the loose
// objects, in the foreground when gc.autoDetach is false and in the
// background otherwise; under it, or with gc.auto 0, nothing runs.
func TestAutoGC(t *testing.T) {
	ctx := context.Background()
	t.Run("under the threshold", func(t *testing.T) {
		r := gcRepo(t, 3)
		require.False(t, r.needsGC(), "3 in objects/17 is about 768 loose objects, under 6700")
		require.NoError(t, r.AutoGC(ctx, true))
		require.Equal(t, 3, looseIn17(t, r))
	})
	t.Run("off", func(t *testing.T) {
		r := gcRepo(t, 3, "gc.auto", "0")
		require.False(t, r.needsGC())
	})
	t.Run("a collection running", func(t *testing.T) {
		r := gcRepo(t, 3, "gc.auto", "256")
		require.True(t, r.needsGC())
		require.NoError(t, os.WriteFile(filepath.Join(r.CommonDir, "gc.pid"), []byte("1 host\n"), 0o644))
		require.False(t, r.needsGC(), "no second git gc while one holds gc.pid")
	})
	t.Run("foreground", func(t *testing.T) {
		r := gcRepo(t, 3, "gc.auto", "256", "gc.autoDetach", "false")
		require.True(t, r.needsGC())
		require.NoError(t, r.AutoGC(ctx, true))
		require.Equal(t, 0, looseIn17(t, r), "packed before AutoGC returned")
		require.False(t, r.needsGC())
		packs, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "*.pack"))
		require.NotEmpty(t, packs)
	})
	t.Run("background", func(t *testing.T) {
		r := gcRepo(t, 3, "gc.auto", "256", "gc.autoDetach", "false")
		require.NoError(t, r.AutoGC(ctx, false), "a server never waits")
		// git gc holds gc.pid until it is done: the directory is removed after
		require.Eventually(t, func() bool {
			_, err := os.Stat(filepath.Join(r.CommonDir, "gc.pid"))
			return looseIn17(t, r) == 0 && os.IsNotExist(err)
		}, 60*time.Second, 50*time.Millisecond)
	})
}
