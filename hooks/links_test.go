package hooks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/linkstore"
)

// A session's end starts the links' refresh in the background when one is
// due, never on its own path; the background event fetches the org store
// into the shared copy and the next session start injects what it brought.
func TestSessionEndRefreshesLinksInTheBackground(t *testing.T) {
	isolate(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	ctx := context.Background()
	orgSrc := newRepo(t, true)
	seed(t, orgSrc, seedMem{Type: gitstore.TypeConvention, Text: "Every acme service exposes /healthz for the load balancer", Source: gitstore.SourceUser, Pinned: true})
	org := filepath.Join(t.TempDir(), "org.git")
	git(t, orgSrc, "init", "-q", "--bare", org)
	gitstoretest.CheckedByGit(t, org)
	git(t, orgSrc, "push", "-q", org, "refs/memory/main:refs/memory/main")

	dir := newRepo(t, false)
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, linkstore.Record(ctx, repo, linkstore.Link{Name: "acme", URL: org}, false))
	c, err := linkstore.CopyOf(org)
	require.NoError(t, err)
	_, err = c.Refresh(ctx, linkstore.RefreshOptions{Now: fixedNow})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, c.RepoDir())

	hook := func(event, stdin string, later func([]string, []byte)) string {
		t.Helper()
		var out strings.Builder
		o := hooks.Run(ctx, hooks.Request{
			Event: event, Agent: "claude", In: strings.NewReader(stdin), Out: &out,
			Now: fixedNow, Getenv: func(string) string { return "" }, Later: later,
		})
		require.NoError(t, o.Err)
		return out.String()
	}
	start := hook("session-start", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "startup"}), nil)
	require.Contains(t, start, "exposes /healthz")
	require.Contains(t, start, "org:acme")

	// a new org memory; the copy is fresh: a session's end starts nothing
	seed(t, orgSrc, seedMem{Type: gitstore.TypeConvention, Text: "acme services log as JSON lines to stdout", Source: gitstore.SourceUser, Pinned: true})
	git(t, orgSrc, "push", "-q", org, "refs/memory/main:refs/memory/main")
	var started []string
	later := func(args []string, _ []byte) { started = append(started, strings.Join(args, " ")) }
	end := payload("claude", "SessionEnd", "s1", dir, nil)
	hook("session-end", end, later)
	require.Empty(t, started)

	// due (mem.link.refresh 0): the end starts the refresh, and fetches nothing itself
	git(t, dir, "config", "mem.link.refresh", "0")
	hook("session-end", payload("claude", "SessionEnd", "s2", dir, nil), later)
	require.Equal(t, []string{"links --agent claude"}, started)
	require.NotContains(t, hook("session-start", payload("claude", "SessionStart", "s3", dir, map[string]any{"source": "startup"}), nil), "JSON lines")

	hook("links", end, nil)
	start = hook("session-start", payload("claude", "SessionStart", "s4", dir, map[string]any{"source": "startup"}), nil)
	require.Contains(t, start, "acme services log as JSON lines")
}
