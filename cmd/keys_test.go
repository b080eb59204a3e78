package cmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIKeys: retrieval keys are saved with add --key, shown, found by
// recall, replaced by revise --key and removed by revise --no-keys.
func TestCLIKeys(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--key", "hosting provider", "--key", "where does the backend run?", "--", "The API is deployed to Fly.io from main by GitHub Actions."))
	mustRun(t, sb, "add", "--", "Bookings are stored in UTC; convert in the UI.")
	mustRun(t, sb, "add", "--", "requireAdmin throws ERR_NO_SESSION before login.")
	require.Contains(t, mustRun(t, sb, "show", id), "keys:      hosting provider; where does the backend run?")
	var shown struct {
		Keys []string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "show", "--json", id)), &shown))
	require.Equal(t, []string{"hosting provider", "where does the backend run?"}, shown.Keys)

	items := recallJSON(t, sb, "--", "which hosting provider do we use")
	require.NotEmpty(t, items)
	require.True(t, strings.HasPrefix(items[0].ID, id), "found through its keys")

	mustRun(t, sb, "revise", id, "--key", "cloud platform")
	require.Contains(t, mustRun(t, sb, "show", id), "keys:      cloud platform")
	require.Contains(t, mustRun(t, sb, "show", id), "Fly.io", "a keys-only revision keeps the text")
	mustRun(t, sb, "revise", id, "--no-keys")
	require.NotContains(t, mustRun(t, sb, "show", id), "keys:")

	_, errOut, code := sb.run("revise", id, "--key", "a", "--no-keys")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "cannot be used together")
	_, errOut, code = sb.run("add", "--key", "bell\a", "--", "a memory with a bad key")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "control character")
}
