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
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

// holdNoteLockEnv makes TestHelperHoldNoteLock a child process that takes
// the note lock of session "s1" in the repository it names.
const holdNoteLockEnv = "HANDOFF_TEST_HOLD_NOTE_LOCK"

// TestHelperHoldNoteLock is not a test: run by TestAbandonedNoteLock, it
// takes a session's note lock as a session-end hook does, says so, and waits
// to be killed.
func TestHelperHoldNoteLock(t *testing.T) {
	repo, err := gitstore.Open(gitstoretest.Holding(t, holdNoteLockEnv))
	require.NoError(t, err)
	s, err := OpenSessions(repo)
	require.NoError(t, err)
	_, err = s.lock(context.Background(), "s1")
	require.NoError(t, err)
	gitstoretest.Hold()
}

// commitRefundWebhooks commits a change in dir, so the session has
// something to note.
func commitRefundWebhooks(t *testing.T, dir string, git func(args ...string)) {
	require.NoError(t, os.WriteFile(filepath.Join(dir, "refund.go"), []byte("package refund\n"), 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "Verify refund webhooks against the raw body")
}

// startedSession is a repository with one commit, run by git, whose
// session id has started.
func startedSession(t *testing.T, id string) (dir string, git func(args ...string), s *Sessions) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir = t.TempDir()
	git = func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=A", "-c", "user.email=a@x"}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	git("init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	git("commit", "-q", "--allow-empty", "-m", "init")
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	s, err = OpenSessions(repo)
	require.NoError(t, err)
	_, _, err = s.Start(context.Background(), id, "test", time.Now())
	require.NoError(t, err)
	return dir, git, s
}

// TestAbandonedNoteLock: a session-end hook killed while it held the
// session's note lock does not cost the session its note: the next
// session end writes it at once (it gave up after half a second, and the
// note was lost).
func TestAbandonedNoteLock(t *testing.T) {
	ctx := context.Background()
	dir, git, s := startedSession(t, "s1")
	commitRefundWebhooks(t, dir, git)

	gitstoretest.KillHolder(t, "TestHelperHoldNoteLock", holdNoteLockEnv, dir)
	require.FileExists(t, s.path("s1", ".lock"), "the killed hook left its lock")

	start := time.Now()
	note, err := s.End(ctx, "s1", EndOptions{Writer: gitstore.Writer{Agent: "test", Session: "s1"}})
	require.NoError(t, err)
	require.NotNil(t, note, "the session's note is written")
	require.Contains(t, note.Text, "Verify refund webhooks")
	require.Less(t, time.Since(start), time.Second)
	require.NoFileExists(t, s.path("s1", ".lock"))
}

// TestNoteLockWaitsForItsHolder: a session end waits for a live hook's note
// lock as long as its context lets it. Within a hook's short deadline it
// gives up with ErrBusy; the background finish of the note, which has time,
// writes it once the holder is gone (it gave up after half a second).
func TestNoteLockWaitsForItsHolder(t *testing.T) {
	dir, git, s := startedSession(t, "s1")
	commitRefundWebhooks(t, dir, git)
	kill := gitstoretest.StartHolder(t, "TestHelperHoldNoteLock", holdNoteLockEnv, dir)
	o := EndOptions{Writer: gitstore.Writer{Agent: "test", Session: "s1"}}

	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	note, err := s.End(short, "s1", o)
	require.ErrorIs(t, err, memerr.ErrBusy)
	require.Nil(t, note)

	const held = 1200 * time.Millisecond
	start := time.Now()
	time.AfterFunc(held, kill)
	long, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	note, err = s.End(long, "s1", o)
	require.NoError(t, err)
	require.NotNil(t, note, "the session's note is written once the holder is gone")
	require.Contains(t, note.Text, "Verify refund webhooks")
	require.GreaterOrEqual(t, time.Since(start), held, "a live holder's lock was broken")
}
