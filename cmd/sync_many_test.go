package cmd_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSyncManyClonesToOneRemote: eight clones of one bare remote, each with
// a writer adding 50 memories and running git mem sync after every 10, all
// at once (40 concurrent syncs). Every sync succeeds (they failed with "kept
// moving while pushing"),
// every memory reaches the remote, and after a final sync round every clone
// holds the same tree as the remote; git fsck is clean everywhere.
func TestSyncManyClonesToOneRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("400 writes and 40 concurrent syncs through real processes")
	}
	writers, each, syncEvery := 8, 50, 10
	if v, err := strconv.Atoi(os.Getenv("GIT_MEM_TEST_SYNC_EVERY")); err == nil && v > 0 {
		syncEvery = v // 1: a sync after every add
	}
	w := newSyncWorld(t)
	clones := make([]string, writers)
	for i := range clones {
		clones[i] = w.clone(fmt.Sprintf("Writer%d", i))
	}
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	var syncs int
	var slowest, addTime, syncTime time.Duration
	for i, dir := range clones {
		wg.Add(1)
		go func(i int, dir string) {
			defer wg.Done()
			for j := 1; j <= each; j++ {
				text := syDistinct(fmt.Sprintf("writer %d memory %d", i, j))
				t0 := time.Now()
				_, errOut, code := w.memIn(dir, "add", "--", text)
				mu.Lock()
				addTime += time.Since(t0)
				if code != 0 {
					failures = append(failures, fmt.Sprintf("writer %d add %d: %s", i, j, errOut))
				}
				mu.Unlock()
				if j%syncEvery == 0 || j == each {
					t0 := time.Now()
					_, errOut, code := w.memIn(dir, "sync")
					d := time.Since(t0)
					mu.Lock()
					syncs++
					slowest = max(slowest, d)
					syncTime += d
					if code != 0 {
						failures = append(failures, fmt.Sprintf("writer %d sync after %d: %s", i, j, errOut))
					}
					mu.Unlock()
				}
			}
		}(i, dir)
	}
	wg.Wait()
	t.Logf("%d writers x %d memories, %d syncs: %v; adds took %v in all, syncs %v (slowest %v)", writers, each, syncs,
		time.Since(start).Round(time.Second), addTime.Round(time.Second), syncTime.Round(time.Second), slowest.Round(time.Millisecond))
	require.Empty(t, failures, strings.Join(failures, "\n"))

	want := writers * each
	require.Equal(t, want, len(strings.Fields(w.gitIn(w.remote, "ls-tree", "-r", "--name-only", "refs/memory/main"))), "every memory is on the remote")
	for _, dir := range clones {
		w.memOKIn(dir, "sync")
	}
	tree := w.gitIn(w.remote, "rev-parse", "refs/memory/main^{tree}")
	for i, dir := range clones {
		require.Equal(t, tree, w.gitIn(dir, "rev-parse", "refs/memory/main^{tree}"), "clone %d equals the remote", i)
		require.Equal(t, want, w.count(dir))
		w.gitIn(dir, "fsck", "--strict", "--no-progress")
	}
	w.gitIn(w.remote, "fsck", "--strict", "--no-progress")
}
