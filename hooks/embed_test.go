package hooks_test

import (
	"context"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding/embedtest"
	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/index"
)

func TestPromptHookInjectsAVectorHitOnlyWhenClose(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Text: "Rotate the frobnicator credentials every Tuesday."},
		seedMem{Text: "Run the billing tests with make test-billing, they need Postgres"},
	)
	srv := embedtest.Start(t, embedtest.Paraphrases)
	git(t, dir, "config", "mem.embed.url", srv.URL)
	git(t, dir, "config", "mem.embed.model", "stand-in")
	git(t, dir, "config", "mem.embed.minScore", "0.6")
	res, err := index.FillVectors(context.Background(), openSet(t, dir), nil)
	require.NoError(t, err)
	require.Equal(t, 2, res.Cached)

	p := func(session, prompt string) string {
		return payload("claude", "UserPromptSubmit", session, dir, map[string]any{"prompt": prompt})
	}
	// similarity ≈ 0.77: enough for a question asked, not for a prompt
	require.Empty(t, run(t, "prompt", "claude", p("s1", "widget keys cycling")).Output)
	require.Empty(t, run(t, "prompt", "claude", p("s1", "how do we bake sourdough bread")).Output)
	o := run(t, "prompt", "claude", p("s1", "cycling widget keys weekly tue"))
	require.Contains(t, injected(t, o), "frobnicator credentials")
	// lexical injection is unchanged
	require.Contains(t, injected(t, run(t, "prompt", "claude", p("s2", "how do I run the billing tests"))), "make test-billing")
	require.Empty(t, logText(t, dir))
}

func TestPromptHookWithABrokenEndpoint(t *testing.T) {
	slow := embedtest.Start(t, nil)
	slow.Set(func(s *embedtest.Server) { s.Delay = 10 * time.Second })
	for _, tc := range []struct{ name, url string }{
		{"dead", embedtest.DeadURL(t)},
		{"slow", slow.URL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			seed(t, dir, seedMem{Text: "Run the billing tests with make test-billing, they need Postgres"})
			git(t, dir, "config", "mem.embed.url", tc.url)
			git(t, dir, "config", "mem.embed.model", "stand-in")
			p := func(session string) string {
				return payload("claude", "UserPromptSubmit", session, dir, map[string]any{"prompt": "how do I run the billing tests"})
			}
			start := time.Now()
			o := run(t, "prompt", "claude", p("s1"))
			require.False(t, o.TimedOut)
			require.Less(t, time.Since(start), 2500*time.Millisecond)
			require.Contains(t, injected(t, o), "make test-billing", "lexical recall answers")

			// the next hook does not ask the endpoint again, and the log says so once
			start = time.Now()
			o = run(t, "prompt", "claude", p("s2"))
			require.Less(t, time.Since(start), 500*time.Millisecond)
			require.Contains(t, injected(t, o), "make test-billing")
			run(t, "session-start", "claude", payload("claude", "SessionStart", "s3", dir, nil))
			log := logText(t, dir)
			require.Equal(t, 1, strings.Count(log, "embeddings unavailable since"), log)
			require.Contains(t, log, "recall is lexical only")
		})
	}
}

// TestPromptHookHoldsItsDeadlineWithAHostileEndpoint: the hook binary's
// prompt hook, against an endpoint on 127.0.0.1 that streams an endless
// header line or body, stalls or trickles, returns within its deadline
// with the lexical answer, and buffers nothing of the stream (the endless
// header line was read until the deadline, past the hook's own, into
// gigabytes of memory).
func TestPromptHookHoldsItsDeadlineWithAHostileEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binary")
	}
	_, hookBin := buildBinaries(t)
	const ok = "HTTP/1.1 200 OK\r\n"
	for _, tc := range []struct {
		name   string
		answer func(io.Writer) error
	}{
		{"endless header line", embedtest.Forever(ok+"X-Endless: ", "a")},
		{"endless body", embedtest.Forever(ok+"Content-Type: application/json\r\n\r\n", "[1,")},
		{"stall", embedtest.Stall(ok)},
		{"trickle", embedtest.Trickle(ok+"X-Slow: ", 'a')},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			seed(t, dir, seedMem{Text: "Run the billing tests with make test-billing, they need Postgres"})
			url, _ := embedtest.Raw(t, tc.answer)
			git(t, dir, "config", "mem.embed.url", url)
			git(t, dir, "config", "mem.embed.model", "stand-in")
			cmd := exec.Command(hookBin, "prompt", "--agent", "claude")
			cmd.Stdin = strings.NewReader(payload("claude", "UserPromptSubmit", "s1", dir, map[string]any{"prompt": "how do I run the billing tests"}))
			start := time.Now()
			out, err := cmd.Output()
			took := time.Since(start)
			require.NoError(t, err, "a hook exits 0")
			require.Less(t, took, 3*time.Second, "the prompt hook's deadline")
			require.Contains(t, injected(t, &hooks.Outcome{Output: out}), "make test-billing", "lexical recall answers")
			if ru, isRusage := cmd.ProcessState.SysUsage().(*syscall.Rusage); isRusage && runtime.GOOS == "linux" {
				require.Less(t, ru.Maxrss, int64(256<<10), "the hook's peak memory, KiB")
			}
		})
	}
}
