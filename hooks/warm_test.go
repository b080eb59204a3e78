package hooks_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
)

// startWarmAndExit is the test binary acting as a hook that ran out of time:
// it starts the warm-up with the payload from GIT_MEM_TEST_PAYLOAD and exits
// at once, as a hook does.
func startWarmAndExit(self string) {
	payload, err := os.ReadFile(os.Getenv("GIT_MEM_TEST_PAYLOAD"))
	if err != nil {
		os.Exit(3)
	}
	if err := hooks.StartWarm(self, payload); err != nil {
		os.Exit(4)
	}
	os.Exit(0)
}

// TestStartWarmHandsOverPayload: the background warm-up receives the whole
// payload on stdin, and its arguments, although the hook that started it
// exits right away (five times in a row, small and large payloads).
func TestStartWarmHandsOverPayload(t *testing.T) {
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
