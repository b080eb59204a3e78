package hooks_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHookScopeIsThePayloads: an inherited GIT_DIR (and GIT_WORK_TREE,
// GIT_INDEX_FILE) pointing at repository A does not decide whose memory a
// session in repository B sees: B's memories are injected, A's never.
func TestHookScopeIsThePayloads(t *testing.T) {
	isolate(t)
	a := newRepo(t, false)
	b := newRepo(t, false)
	seed(t, a, seedMem{Type: "preference", Text: "Repository A secret plan: ship the zebra migration"})
	seed(t, b, seedMem{Type: "preference", Text: "Repository B prefers table-driven tests"})
	t.Setenv("GIT_DIR", filepath.Join(a, ".git"))
	t.Setenv("GIT_WORK_TREE", a)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(a, ".git", "index"))
	o := run(t, "session-start", "claude", payload("claude", "SessionStart", "scope", b, map[string]any{"source": "startup"}))
	require.NoError(t, o.Err)
	text := injected(t, o)
	require.Contains(t, text, "Repository B prefers table-driven tests")
	require.NotContains(t, text, "zebra")
}
