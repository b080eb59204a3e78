package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memBounded runs the binary in dir, killing it if it has not finished
// within limit: a hostile file must never hang an import.
func (sb *sandbox) memBounded(limit time.Duration, dir string, args ...string) (string, string, int) {
	sb.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, binary, args...)
	c.Dir = dir
	c.Env = sb.env()
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	require.NoError(sb.t, ctx.Err(), "git mem %s did not finish: %s", strings.Join(args, " "), errb.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(sb.t, err)
	return out.String(), errb.String(), 0
}

// TestImportFileLimit: a file over the documented limit of one file is
// skipped without being read whole.
func TestImportFileLimit(t *testing.T) {
	sb := newSandbox(t)
	big := filepath.Join(sb.repo, "big.md")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<40)) // sparse: a terabyte that takes no disk
	require.NoError(t, f.Close())
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "good.md"), []byte("- the good file beside it is imported\n"), 0o644))
	_, errOut, code := sb.memBounded(20*time.Second, sb.repo, "import", "big.md", "good.md")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "skipped big.md: invalid input: over the 67108864-byte limit of one file; split it")
}

// TestImportTwiceAddsNothing: importing the same file again adds nothing,
// even when its memories differ from each other or from a stored one only
// by a number, and a dry run says so too.
func TestImportTwiceAddsNothing(t *testing.T) {
	cases := []struct {
		name   string
		stored string // added before the imports
		file   string
		items  int
	}{
		{"two items differing by a number", "", "- the api listens on port 8080 in staging\n- the api listens on port 8081 in staging\n", 2},
		{"an item differing from a stored memory by a number", "the api listens on port 9090 in prod", "- the api listens on port 9091 in prod\n- the api listens on port 9090 in prod\n", 2},
		{"numbered versions", "", "- release 1.2 needs the schema migration first\n- release 1.3 needs the schema migration first\n- release 1.4 needs the schema migration first\n", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			if tc.stored != "" {
				mustRun(t, sb, "add", "--", tc.stored)
			}
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte(tc.file), 0o644))
			_, errOut, code := sb.run("import", "notes.md")
			require.Equal(t, 0, code, errOut)
			before := refAt(t, sb.repo, "refs/memory/main")
			var list []struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &list))
			count := len(list)

			out, errOut, code := sb.run("import", "--dry-run", "notes.md")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, fmt.Sprintf("0 added, 0 reinforced, %d unchanged", tc.items))
			out, errOut, code = sb.run("import", "notes.md")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, fmt.Sprintf("0 added, 0 reinforced, %d unchanged, 0 refused (no commit: nothing new)", tc.items))
			require.Equal(t, before, refAt(t, sb.repo, "refs/memory/main"))
			require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &list))
			require.Len(t, list, count)
		})
	}
}

// TestImportBadRecord: one bad record is refused at its file and line, the
// same way in a dry run and in the import, and the good records beside it
// are imported (in one commit); a file that is not JSON at all is skipped
// with the line where it stops being JSON.
func TestImportBadRecord(t *testing.T) {
	good := `{"text": "the good record beside it is imported"}`
	cases := []struct {
		name, record, refusal string
	}{
		{"restored record with an unknown event", `{"text": "restored with a bad event", "id": "0123456789abcdef", "created": "2026-01-01T00:00:00Z", "events": [{"op": "zzz"}]}`,
			`refused bad.jsonl:2: invalid input: event 0 has unknown op "zzz"`},
		{"field of the wrong kind", `{"text": "supersedes given as a list", "supersedes": ["0123456789abcdef"]}`,
			`refused bad.jsonl:2: not a memory: its field "supersedes" is a JSON array, not a string; fix or remove this record`},
		{"text of the wrong kind", `{"text": 42}`,
			`refused bad.jsonl:2: not a memory: its field "text" is a JSON number, not a string; fix or remove this record`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "bad.jsonl"), []byte(good+"\n"+tc.record+"\n"), 0o644))
			out, errOut, code := sb.run("import", "--dry-run", "bad.jsonl")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, tc.refusal+"\n")
			require.Contains(t, out, "1 added, 0 reinforced, 0 unchanged, 1 refused")
			out, errOut, code = sb.run("import", "bad.jsonl")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.refusal+"\n", errOut, "the same report as the dry run")
			require.Contains(t, out, "1 added, 0 reinforced, 0 unchanged, 1 refused")
			require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))
			require.Contains(t, sb.git("log", "-p", "refs/memory/main"), "the good record beside it is imported")
		})
	}

	sb := newSandbox(t)
	sb.isolate()
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.jsonl"), []byte(good+"\nnot json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte("- the Markdown beside it is imported\n"), 0o644))
	for _, args := range [][]string{{"import", "--dry-run", "notes.jsonl", "notes.md"}, {"import", "notes.jsonl", "notes.md"}} {
		_, errOut, code := sb.run(args...)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, "skipped notes.jsonl:2: not a memory file: not a memory (a string or an object with text): invalid character")
	}
}
