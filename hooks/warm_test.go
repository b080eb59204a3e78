package hooks_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/index"
)

// startWarmAndExit is the test binary acting as a hook that ran out of time:
// it starts the warm-up with the payload from GIT_MEM_TEST_PAYLOAD and exits
// at once, as a hook does.
func startWarmAndExit(self string) {
	payload, err := os.ReadFile(os.Getenv("GIT_MEM_TEST_PAYLOAD"))
	if err != nil {
		os.Exit(3)
	}
	if err := hooks.StartLater(self, []string{"warm"}, payload); err != nil {
		os.Exit(4)
	}
	os.Exit(0)
}

// TestStartLaterHandsOverPayload: the background warm-up receives the whole
// payload on stdin, and its arguments, although the hook that started it
// exits right away (five times in a row, small and large payloads).
func TestStartLaterHandsOverPayload(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in warm-up is a shell script")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "git-mem")
	// the stand-in copies its stdin, then says it finished
	script := "#!/bin/sh\ncat > \"$0.$$.in\"\necho \"$@\" > \"$0.$$.args\"\nmv \"$0.$$.in\" \"$0.$$.done\"\n"
	require.NoError(t, os.WriteFile(self, []byte(script), 0o755))
	small := []byte(`{"session_id":"s1","cwd":"/src/app","hook_event_name":"SessionStart","source":"startup"}`)
	large := bytes.Repeat([]byte(`{"prompt":"a payload larger than a pipe's buffer"}`), 1<<15)
	for i, payload := range [][]byte{small, small, small, small, small, large} {
		in := filepath.Join(dir, "payload")
		require.NoError(t, os.WriteFile(in, payload, 0o644))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GIT_MEM_TEST_START_WARM="+self, "GIT_MEM_TEST_PAYLOAD="+in)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		var done []string
		require.Eventually(t, func() bool {
			done, _ = filepath.Glob(self + ".*.done")
			return len(done) == 1
		}, 20*time.Second, 20*time.Millisecond, "run %d: the warm-up finished", i)
		got, err := os.ReadFile(done[0])
		require.NoError(t, err)
		require.Equal(t, len(payload), len(got), "run %d: the warm-up read the whole payload", i)
		require.Equal(t, payload, got)
		args, err := os.ReadFile(strings.TrimSuffix(done[0], ".done") + ".args")
		require.NoError(t, err)
		require.Equal(t, "hook warm\n", string(args))
		require.NoError(t, os.Remove(done[0]))
	}
}

// TestHooksLeaveFoldsToTheWarmUp: a hook that brings the recall snapshot
// forward past its fold size (the session-end hook, which writes the
// session's note) appends to the delta instead of rewriting the snapshot
// (which takes about a second at 100,000 memories), and starts the
// warm-up, which folds it.
func TestHooksLeaveFoldsToTheWarmUp(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir, corpus(50)...)
	set := openSet(t, dir)
	require.NoError(t, index.Refresh(context.Background(), set))
	snapshot := index.SnapshotPath(set)
	base, err := os.ReadFile(snapshot)
	require.NoError(t, err)
	hook := func(event, stdin string, later func([]string, []byte)) {
		t.Helper()
		o := hooks.Run(context.Background(), hooks.Request{
			Event: event, Agent: "claude", In: strings.NewReader(stdin), Out: io.Discard,
			Now: fixedNow, Getenv: func(string) string { return "" }, Later: later,
		})
		require.NoError(t, o.Err)
	}
	hook("session-start", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "startup"}), nil)
	write(t, dir, "ledger.go", "package ledger\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add the refund ledger")
	// many memories in one write: bringing the snapshot forward passes its
	// fold size at once
	seed(t, dir, corpus(400)[50:]...)

	var warmed []byte
	end := payload("claude", "SessionEnd", "s1", dir, map[string]any{"reason": "exit"})
	hook("session-end", end, func(args []string, p []byte) {
		require.Equal(t, []string{"warm", "--agent", "claude"}, args)
		warmed = p
	})
	after, err := os.ReadFile(snapshot)
	require.NoError(t, err)
	require.Equal(t, base, after, "the hook did not fold")
	require.True(t, index.FoldDue(set))
	require.Equal(t, end, string(warmed), "the warm-up was started with the payload")

	hook("warm", end, nil)
	require.False(t, index.FoldDue(set))
	after, err = os.ReadFile(snapshot)
	require.NoError(t, err)
	require.NotEqual(t, base, after, "the warm-up folded")
	_, err = os.Stat(snapshot + ".delta")
	require.True(t, os.IsNotExist(err))
}
