package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
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

// TestMarkdownExportRoundTrip: memories whose text looks like Markdown
// structure (a rule, a heading, a list item, a comment, spaces) survive git
// mem export --format md and git mem import into another repository as
// exactly their text.
func TestMarkdownExportRoundTrip(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	texts := []string{"---", "***", "# not a heading", "- not an item", "1. not numbered", "keep <!-- this --> comment", "  spaced around  ", "a\n   \nb", "plain memory after them"}
	for _, text := range texts {
		_, errOut, code := sb.run("add", "--", text)
		require.Equal(t, 0, code, errOut)
	}
	md := sb.exportTo(false, "--format", "md")
	other := filepath.Join(sb.home, "other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	out, err := exec.Command("git", "init", "-q", other).CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, other)
	require.NoError(t, os.WriteFile(filepath.Join(other, "MEMORY.md"), []byte(md), 0o644))
	imported, errOut, code := sb.runIn(other, "import", "MEMORY.md")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, imported, fmt.Sprintf("%d added", len(texts)))
	listed, _, _ := sb.runIn(other, "list", "--json")
	var ms []struct{ Text string }
	require.NoError(t, json.Unmarshal([]byte(listed), &ms))
	var got []string
	for _, m := range ms {
		got = append(got, m.Text)
	}
	require.ElementsMatch(t, texts, got)
}
