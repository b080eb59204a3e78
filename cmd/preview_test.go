package cmd_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCLIPreview(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	out := mustRun(t, sb, "preview")
	require.Contains(t, out, "nothing would be injected")

	mustRun(t, sb, "add", "--type", "preference", "--", "Prefer explicit error wrapping with %w")
	out, errOut, code := sb.run("preview")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Preferences and pinned memories:")
	require.Contains(t, errOut, "of 8000 characters")
	require.Contains(t, errOut, "handoff:  none for main")

	out = mustRun(t, sb, "preview", "--agent", "codex")
	var v map[string]map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	require.Equal(t, "SessionStart", v["hookSpecificOutput"]["hookEventName"])
	require.Len(t, v["hookSpecificOutput"], 2)

	out = mustRun(t, sb, "preview", "--json")
	var pj struct {
		Chars, Cap, Shown int
	}
	require.NoError(t, json.Unmarshal([]byte(out), &pj))
	require.Equal(t, 8000, pj.Cap)
	require.Equal(t, 1, pj.Shown)
}
