package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
)

// exportTo runs git mem export in-process, stdout a terminal or not.
func (sb *sandbox) exportTo(terminal bool, args ...string) string {
	sb.t.Helper()
	var out, errb bytes.Buffer
	e := &cmd.Env{
		Streams: cmd.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Terminal: terminal},
		Dir:     sb.repo,
		Getenv:  func(string) string { return "" },
		Now:     func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
	}
	code := cmd.Run(context.Background(), e, append([]string{"export"}, args...))
	require.Equal(sb.t, 0, code, errb.String())
	return out.String()
}

// TestExportTerminalEscaped: a memory's text cannot drive the terminal an
// export is printed on (no bidirectional override, no escape sequence),
// while a file or a pipe gets the text exactly, for import to read back.
func TestExportTerminalEscaped(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	// control characters are refused on the way in; bidirectional controls
	// are text a person may mean, so they are stored and must be escaped
	hostile := "deploy with \u202efly.io\u202c and \u2066care\u2069"
	_, errOut, code := sb.run("add", "--", hostile)
	require.Equal(t, 0, code, errOut)
	for _, format := range []string{"md", "json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			raw := sb.exportTo(false, "--format", format)
			require.Contains(t, raw, "\u202efly.io\u202c", "a file gets the text exactly")
			shown := sb.exportTo(true, "--format", format)
			for _, c := range []string{"\u202e", "\u202c", "\u2066", "\u2069"} {
				require.NotContains(t, shown, c)
			}
			require.Contains(t, shown, `\u202efly.io`)
			if format == "json" {
				var v []struct{ Text string }
				require.NoError(t, json.Unmarshal([]byte(shown), &v), "escaped JSON is still JSON")
				require.Equal(t, hostile, v[0].Text, "and says the same")
			}
		})
	}
}
