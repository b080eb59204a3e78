package mcp

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/surface"
)

// memory_recall finds a linked store's memories, labelled org:NAME;
// memory_add writes to a linked store only when the call names it and the
// user let agents write to it.
func TestLinkedStores(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	ctx := context.Background()
	orgSrc := newRepo(t)
	seed(t, orgSrc, gitstore.Memory{ID: "dddd0000dddd0001", Type: gitstore.TypeConvention, Text: "Every acme service exposes /healthz for the load balancer"})
	org := filepath.Join(t.TempDir(), "org.git")
	gitRun(t, orgSrc, "init", "-q", "--bare", org)
	gitstoretest.CheckedByGit(t, org)
	gitRun(t, orgSrc, "push", "-q", org, "refs/memory/main:refs/memory/main")

	dir := newRepo(t)
	r, err := gitstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, linkstore.Record(ctx, r, linkstore.Link{Name: "acme", URL: org, Write: true}, false))
	cp, err := linkstore.CopyOf(org)
	require.NoError(t, err)
	_, err = cp.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, cp.RepoDir())

	c := connect(t, Options{Dir: dir}, "Test Client")
	res := c.call("memory_recall", map[string]any{"query": "what do acme services expose for the load balancer"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "org:acme")
	var rec struct {
		Memories []surface.Hit `json:"memories"`
	}
	structured(t, res, &rec)
	require.NotEmpty(t, rec.Memories)
	require.Equal(t, "org:acme", rec.Memories[0].Scope)

	add := func(store string) string {
		t.Helper()
		res := c.call("memory_add", map[string]any{"text": "acme services log as JSON lines to stdout", "type": "convention", "store": store})
		if res.IsError {
			return "error: " + resultText(res)
		}
		return resultText(res)
	}
	require.Contains(t, add("org:acme"), "does not take agents' memories", "linked with --write alone")
	require.Contains(t, add("org:nope"), "no linked store org:nope")
	require.Contains(t, add("personal"), "not one memory_add writes to")

	require.NoError(t, linkstore.Record(ctx, r, linkstore.Link{Name: "acme", URL: org, Write: true, Agents: true}, false))
	require.NotContains(t, add("org:acme"), "error:")
	cp, err = linkstore.CopyOf(org)
	require.NoError(t, err)
	un, err := cp.Unpushed(ctx)
	require.NoError(t, err)
	require.Len(t, un, 1, "written to the local copy, for git mem sync to push")
	proj, err := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).List(gitstore.Filter{})
	require.NoError(t, err)
	require.Empty(t, proj, "nothing went to the project's memory")
}
