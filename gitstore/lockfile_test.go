package gitstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gitrefs"
	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// holdLockEnv makes TestHelperHoldRefLock a child process that takes the ref
// lock of the repository it names and never lets go.
const holdLockEnv = "GITSTORE_TEST_HOLD_REF_LOCK"

// TestHelperHoldRefLock is not a test: run by killedLockHolder, it takes
// refs/memory/main.lock the way a write does, says so, and waits to be killed.
func TestHelperHoldRefLock(t *testing.T) {
	r, err := Open(gitstoretest.Holding(t, holdLockEnv))
	require.NoError(t, err)
	_, _, err = lockfile.Create(filepath.Join(r.CommonDir, filepath.FromSlash(RefMain)) + ".lock")
	require.NoError(t, err)
	gitstoretest.Hold()
}

// killedLockHolder runs a process that takes the repository's memory ref lock
// mid-write and is killed (as an agent kills a hook), leaving the lock behind.
func killedLockHolder(t *testing.T, dir string) {
	t.Helper()
	gitstoretest.KillHolder(t, "TestHelperHoldRefLock", holdLockEnv, dir)
}

// TestAbandonedRefLock: a writer killed while holding refs/memory/main.lock
// costs the next writer no wait (it waited 10 s for the lock to age), and git
// itself can move the ref afterwards.
func TestAbandonedRefLock(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	add(t, s, "The first memory, written before the crash")

	killedLockHolder(t, dir)
	lockPath := filepath.Join(r.CommonDir, "refs", "memory", "main.lock")
	require.FileExists(t, lockPath, "the killed writer left its lock")

	start := time.Now()
	add(t, s, "The next memory, written right after the crash")
	require.Less(t, time.Since(start), time.Second, "an abandoned lock must not cost the next writer seconds")
	require.NoFileExists(t, lockPath)
	none, cancel := context.WithCancel(context.Background())
	cancel()
	require.True(t, lockfile.WaitReleased(none), "the writer holds no lock once its write is done")

	tip := gittest.Run(t, dir, "rev-parse", RefMain)
	gittest.Run(t, dir, "update-ref", RefMain, tip[:40])
	gittest.Run(t, dir, "fsck", "--no-progress")
}

// TestWriteNeedsTimeBeforeDeadline: a write whose context ends too soon to
// finish is not started; the ref is untouched.
func TestWriteNeedsTimeBeforeDeadline(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		add(t, s, "A memory before the deadline")
		tip, err := s.Tip()
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), gitrefs.WriteBudget/3)
		defer cancel()
		_, err = s.Add(ctx, Writer{Agent: "test"}, NewMemory{Type: TypeFact, Text: "A memory with no time left"})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		after, err := s.Tip()
		require.NoError(t, err)
		require.Equal(t, tip, after)
	})
}
