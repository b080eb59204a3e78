package hooks_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/hooks"
)

// slowGit puts a git first on PATH that waits before running the real one,
// so that a hook reaches its deadline in the middle of its work.
func slowGit(t *testing.T, wait string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	script := "#!/bin/sh\nsleep " + wait + "\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// locksUnder lists the lock files left in a git directory.
func locksUnder(t *testing.T, gitDir string) []string {
	t.Helper()
	var locks []string
	require.NoError(t, filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return err
	}))
	return locks
}

// locksHeldBy lists the lock files in a git directory that name process
// pid as their holder.
func locksHeldBy(t *testing.T, gitDir string, pid int) []string {
	t.Helper()
	var held []string
	for _, p := range locksUnder(t, gitDir) {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), fmt.Sprintf("git-mem pid %d ", pid)) {
			held = append(held, p)
		}
	}
	return held
}

// sessionCommitted makes dir's session s1 commit a change after start (the
// hook start runs), and returns a reader of the repository's session notes.
func sessionCommitted(t *testing.T, dir string, start func()) (notes func() []*gitstore.Memory) {
	t.Helper()
	start()
	write(t, dir, "refund.go", "package refund\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Verify refund webhooks against the raw body")
	return func() []*gitstore.Memory {
		ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
		require.NoError(t, err)
		return ms
	}
}

// lateHook runs the hook binary for event with git taking gitWait seconds
// and a deadline of deadlineMS, checks that it exits 0 with nothing on
// stdout, and returns its process id.
func lateHook(t *testing.T, hookBin, event, agent, stdin, gitWait, deadlineMS string) (pid int) {
	t.Helper()
	cmd := exec.Command(hookBin, event, "--agent", agent)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "PATH="+slowGit(t, gitWait), "GIT_MEM_HOOK_DEADLINE_MS="+deadlineMS)
	out, err := cmd.Output()
	require.NoError(t, err, "a hook exits 0")
	require.Empty(t, out, "nothing on stdout past the deadline")
	return cmd.Process.Pid
}

// TestHookDeadlineLeavesNoLock: a session-end hook process that reaches its
// deadline in the middle of writing the session note exits without leaving
// a lock of its own (it left the note lock, so the session's next note was
// lost, and a ref lock made the next add wait 10 s and git update-ref
// fail). The finish it starts in the background writes the note; then no
// lock is left, and the next session end adds nothing.
func TestHookDeadlineLeavesNoLock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binary")
	}
	_, hookBin := buildBinaries(t)
	isolate(t)
	dir := newRepo(t, false)
	gitDir := filepath.Join(dir, ".git")
	notes := sessionCommitted(t, dir, func() {
		exe(t, hookBin, payload(agents.Claude, "SessionStart", "s1", dir, nil), agents.EventSessionStart, "--agent", agents.Claude)
	})

	pid := lateHook(t, hookBin, agents.EventSessionEnd, agents.Claude, payload(agents.Claude, "SessionEnd", "s1", dir, nil), "0.3", "150")
	require.Empty(t, locksHeldBy(t, gitDir, pid), "a hook past its deadline releases what it holds")

	require.Eventually(t, func() bool {
		return len(notes()) == 1 && len(locksUnder(t, gitDir)) == 0
	}, 30*time.Second, 50*time.Millisecond, "the background finish writes the note and lets go of its locks")
	require.Contains(t, notes()[0].Text, "Verify refund webhooks")
	hooksLog, err := os.ReadFile(filepath.Join(gitDir, "mem", "hooks.log"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(hooksLog), "\n"), "only the deadline is logged, not the finish:\n%s", hooksLog)
	require.Contains(t, string(hooksLog), "the session note is being written in the background")

	start := time.Now()
	exe(t, hookBin, payload(agents.Claude, "SessionEnd", "s1", dir, nil), agents.EventSessionEnd, "--agent", agents.Claude)
	require.Less(t, time.Since(start), 2*time.Second)
	require.Len(t, notes(), 1, "the next session end adds nothing")
	tip := git(t, dir, "rev-parse", gitstore.RefMain)
	git(t, dir, "update-ref", gitstore.RefMain, tip)
}

// TestLateNoteIsFinishedInTheBackground: a hook that writes the session note
// (session-end; the stop hook of Cursor and Qwen Code) and passes its
// deadline before the note is written hands the payload to "hook finish",
// with the agent, and that writes the note; a second finish adds nothing.
func TestLateNoteIsFinishedInTheBackground(t *testing.T) {
	for _, tc := range []struct {
		agent, event, name string
		flag               bool // --agent, which Qwen Code's Claude-shaped payloads need
	}{
		{agents.Claude, agents.EventSessionEnd, "SessionEnd", false},
		{agents.Cursor, agents.EventStop, "stop", false},
		{agents.Qwen, agents.EventStop, "Stop", true},
	} {
		t.Run(tc.agent+" "+tc.event, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			notes := sessionCommitted(t, dir, func() {
				run(t, agents.EventSessionStart, tc.agent, payload(tc.agent, "SessionStart", "s1", dir, map[string]any{"source": "startup"}))
			})

			end := payload(tc.agent, tc.name, "s1", dir, nil)
			var args []string
			var handed []byte
			var flag string
			if tc.flag {
				flag = tc.agent
			}
			realPath := os.Getenv("PATH")
			t.Setenv("PATH", slowGit(t, "0.5"))
			o := hooks.Run(context.Background(), hooks.Request{
				Event: tc.event, Agent: flag, In: strings.NewReader(end), Out: io.Discard,
				Now: fixedNow, Getenv: func(string) string { return "" }, Deadline: 100 * time.Millisecond,
				Later: func(a []string, p []byte) { args, handed = a, p },
			})
			require.True(t, o.TimedOut)
			require.ErrorContains(t, o.Err, "the session note is being written in the background")
			require.Equal(t, []string{"finish", "--agent", tc.agent}, args, "the agent, named or detected, is passed on")
			require.Equal(t, end, string(handed))
			t.Setenv("PATH", realPath)
			require.Empty(t, notes(), "the hook wrote no note")

			event, agent := hooks.ParseArgs(append([]string{"hook"}, args...))
			for range 2 {
				o = hooks.Run(context.Background(), hooks.Request{
					Event: event, Agent: agent, In: bytes.NewReader(handed), Out: io.Discard,
					Now: fixedNow, Getenv: func(string) string { return "" },
				})
				require.NoError(t, o.Err)
				require.False(t, o.TimedOut)
				require.Empty(t, o.Output)
				ms := notes()
				require.Len(t, ms, 1, "the finish writes the note once")
				require.Contains(t, ms[0].Text, "Verify refund webhooks")
				require.Equal(t, agents.WriterName(tc.agent), ms[0].Agent)
			}
		})
	}
}

// TestLateStartIsRecordedInTheBackground: a session-start hook process that
// passes its deadline before it records the session's start (git is slow
// to list the worktree) leaves that to the warm-up it starts, so the
// session's end still has a start to write its note from. The agent is
// Qwen Code, whose payloads are Claude Code's: the warm-up is told which.
func TestLateStartIsRecordedInTheBackground(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binary")
	}
	_, hookBin := buildBinaries(t)
	isolate(t)
	dir := newRepo(t, false)
	write(t, dir, "draft.md", "an untracked file: git status must run\n")
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	sessions, err := handoff.OpenSessions(repo)
	require.NoError(t, err)

	lateHook(t, hookBin, agents.EventSessionStart, agents.Qwen, payload(agents.Qwen, "SessionStart", "s1", dir, map[string]any{"source": "startup"}), "1", "100")
	m, err := sessions.Load("s1")
	require.NoError(t, err)
	require.Nil(t, m, "the hook exited before it recorded the start")

	require.Eventually(t, func() bool {
		m, err = sessions.Load("s1")
		return err == nil && m != nil
	}, 30*time.Second, 50*time.Millisecond, "the warm-up records the session's start")
	require.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")), m.Head)
	require.Equal(t, []string{"draft.md"}, m.Dirty)
	require.Equal(t, agents.WriterName(agents.Qwen), m.Agent)
}

// nearDeadline is a context whose deadline is always under the time a
// write needs from now, and that is never done: a hook that reaches its
// write with the deadline that close, every time it runs.
type nearDeadline struct{ context.Context }

func (nearDeadline) Deadline() (time.Time, bool) { return time.Now().Add(10 * time.Millisecond), true }

// TestNoteShortOfTimeIsFinishedInTheBackground: a hook that writes the
// session note and reaches the write with too little time left for it
// (the write does not start) hands the payload to "hook finish", as one
// that passes its deadline does, and the finish writes the note (it was
// dropped).
func TestNoteShortOfTimeIsFinishedInTheBackground(t *testing.T) {
	for _, tc := range []struct {
		agent, event, name string
	}{
		{agents.Claude, agents.EventSessionEnd, "SessionEnd"},
		{agents.Cursor, agents.EventStop, "stop"},
	} {
		t.Run(tc.agent+" "+tc.event, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			notes := sessionCommitted(t, dir, func() {
				run(t, agents.EventSessionStart, tc.agent, payload(tc.agent, "SessionStart", "s1", dir, map[string]any{"source": "startup"}))
			})
			end := payload(tc.agent, tc.name, "s1", dir, nil)
			var args []string
			var handed []byte
			o := hooks.Run(nearDeadline{context.Background()}, hooks.Request{
				Event: tc.event, In: strings.NewReader(end), Out: io.Discard,
				Now: fixedNow, Getenv: func(string) string { return "" },
				Later: func(a []string, p []byte) { args, handed = a, p },
			})
			require.ErrorContains(t, o.Err, "the session note is being written in the background")
			require.Equal(t, []string{"finish", "--agent", tc.agent}, args)
			require.Equal(t, end, string(handed))
			require.Empty(t, notes(), "the hook wrote no note")
			require.Empty(t, locksUnder(t, filepath.Join(dir, ".git")), "and left no lock")

			event, agent := hooks.ParseArgs(append([]string{"hook"}, args...))
			o = hooks.Run(context.Background(), hooks.Request{
				Event: event, Agent: agent, In: bytes.NewReader(handed), Out: io.Discard,
				Now: fixedNow, Getenv: func(string) string { return "" },
			})
			require.NoError(t, o.Err)
			ms := notes()
			require.Len(t, ms, 1, "the finish writes the note")
			require.Contains(t, ms[0].Text, "Verify refund webhooks")
		})
	}
}
