package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWritesBringTheStartCacheForward: after a session start built the
// start cache, a CLI add and an MCP memory_add each append one journal
// line for their write, and the next session start finds the cache current
// (it leaves the file as it is).
func TestWritesBringTheStartCacheForward(t *testing.T) {
	sb := newSandbox(t)
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	sb.memOK("add", "--type", "preference", "--", "Prefer small pull requests")
	start := func(session string) {
		t.Helper()
		payload, err := json.Marshal(map[string]any{"session_id": session, "cwd": sb.repo, "hook_event_name": "SessionStart", "source": "startup", "transcript_path": "/t.jsonl"})
		require.NoError(t, err)
		out, _, code := sb.runStdin(string(payload), nil, "hook", "session-start", "--agent", "claude")
		require.Equal(t, 0, code)
		require.Contains(t, out, "Prefer small pull requests")
	}
	cache := filepath.Join(sb.repo, ".git", "mem", "cache", "start.json")
	lines := func() []string {
		t.Helper()
		data, err := os.ReadFile(cache)
		require.NoError(t, err)
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	start("s1")
	built := len(lines())

	sb.memOK("add", "--", "The ledger stores amounts in cents")
	got := lines()
	require.Len(t, got, built+1, "the add appended one line")
	require.True(t, strings.HasPrefix(got[built], `{"from":`), got[built])
	require.Contains(t, got[built], "amounts in cents")

	sb.mcpCall(nil, "memory_add", map[string]any{"text": "Refunds are reconciled nightly by the ledger job"})
	got = lines()
	require.Len(t, got, built+2, "memory_add appended one line")
	require.Contains(t, got[built+1], "reconciled nightly")

	before, err := os.ReadFile(cache)
	require.NoError(t, err)
	start("s2")
	after, err := os.ReadFile(cache)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "the next start found the cache current")
}
