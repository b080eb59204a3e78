package hooks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embed/embedtest"
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
