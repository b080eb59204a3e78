package hooks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
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

// TestSessionNoteLeavesOutSecretFileNames: a changed file whose name holds
// a credential is left out of the session note's text and paths; the rest
// of the note is still saved.
func TestSessionNoteLeavesOutSecretFileNames(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	token := "ghp_" + strings.Repeat("a1B2", 9)
	run(t, "session-start", "codex", payload("codex", "SessionStart", "sn", dir, map[string]any{"source": "startup"}))
	write(t, dir, "billing.go", "package billing\n")
	write(t, dir, "dumps/"+token+".txt", "x\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add the billing package")
	o := run(t, "session-end", "codex", payload("codex", "SessionEnd", "sn", dir, map[string]any{"reason": "other"}))
	require.NoError(t, o.Err)
	ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
	require.NoError(t, err)
	require.Len(t, ms, 1, "the note is saved")
	require.Contains(t, ms[0].Text, "billing.go")
	require.NotContains(t, ms[0].Text, token)
	for _, p := range ms[0].Paths {
		require.NotContains(t, p, token)
	}
}
