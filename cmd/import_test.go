package cmd_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/install"
	"github.com/git-mem/git-mem/memfile"
)

// copyFixtures copies fixtures/import (without its golden files) into dir.
func copyFixtures(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join("..", "fixtures", "import")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "golden" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	require.NoError(t, err)
}

// refAt is the commit of a ref, "" when it does not exist.
func refAt(t *testing.T, dir, ref string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", ref).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

var shortIDs = regexp.MustCompile(`\b[0-9a-f]{6,}\b`)

var importSources = []string{"CLAUDE.md", "AGENTS.md", ".cursor/rules", "docs/adr", "claude-memory", "simple.json", "simple.jsonl"}

func TestImportFixtures(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	copyFixtures(t, sb.repo)

	// A dry run shows every decision and writes nothing.
	out, errOut, code := sb.run(append([]string{"import", "--dry-run"}, importSources...)...)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, refAt(t, sb.repo, "refs/memory/main"), "a dry run wrote")
	got := shortIDs.ReplaceAllString(out, "ID")
	golden := filepath.Join("..", "fixtures", "golden", "import-dry-run.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)

	// --json says what would be done with each memory.
	out, errOut, code = sb.run(append([]string{"import", "--dry-run", "--json"}, importSources...)...)
	require.Equal(t, 0, code, errOut)
	var report struct {
		DryRun                                bool `json:"dry_run"`
		Added, Reinforced, Unchanged, Refused int
		Items                                 []struct{ File, Action, Type, Text, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	require.True(t, report.DryRun)
	require.Equal(t, []int{29, 1, 0, 3}, []int{report.Added, report.Reinforced, report.Unchanged, report.Refused})
	require.Len(t, report.Items, 33)
	require.Empty(t, refAt(t, sb.repo, "refs/memory/main"), "a dry run wrote")

	// The import is one commit; refused items are named with the reason.
	out, errOut, code = sb.run(append([]string{"import"}, importSources...)...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "read 33 memories from 11 files: 29 added, 1 reinforced, 0 unchanged, 3 refused")
	require.Contains(t, errOut, "refused CLAUDE.md:55: text contains a secret: Stripe secret key")
	require.Contains(t, errOut, "refused docs/adr/0002-use-mongodb.md:1: the decision record's status is Superseded")
	require.Contains(t, errOut, `refused simple.jsonl:3: invalid input: unknown type "rumour"`)
	require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))
	require.Contains(t, sb.git("log", "-1", "--format=%s%n%b", "refs/memory/main"), "mem: import from CLAUDE.md and 10 more files")
	sb.git("fsck", "--no-dangling")
	require.NotContains(t, sb.git("log", "-p", "refs/memory/main"), "sk_live", "the refused secret is nowhere in history")

	var ms []struct {
		ID     string
		Type   string
		Text   string
		Tags   []string
		Keys   []string
		Events []struct{ Op string }
		Origin *struct {
			File string
			Line int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &ms))
	require.Len(t, ms, 29)
	byText := map[string]int{}
	for i, m := range ms {
		byText[m.Text] = i
		require.NotNil(t, m.Origin, "every imported memory records its file: %s", m.Text)
	}
	adr := ms[byText[ms[findText(t, byText, "Use Postgres for bookings\n")].Text]]
	require.Equal(t, "decision", adr.Type)
	require.Equal(t, []string{"adr"}, adr.Tags)
	require.Equal(t, "docs/adr/0003-use-postgres-for-bookings.md", adr.Origin.File)
	utc := ms[byText["Bookings are stored in UTC; convert to local time only in the UI."]]
	require.Equal(t, "CLAUDE.md", utc.Origin.File)
	require.Equal(t, 20, utc.Origin.Line)
	require.Len(t, utc.Events, 1, "AGENTS.md repeats it: reinforced, not added")
	topic := ms[findText(t, byText, "Integration tests must hit a real Postgres database")]
	require.Equal(t, "preference", topic.Type)
	require.Equal(t, "claude-memory/feedback_testing.md", topic.Origin.File)
	require.Contains(t, topic.Keys, "testing approach")

	// Importing the same files again changes nothing.
	out, errOut, code = sb.run(append([]string{"import"}, importSources...)...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "0 added, 0 reinforced, 30 unchanged, 3 refused (no commit: nothing new)")
	require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))

	// Every item refused: exit 1, nothing written.
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "bad.jsonl"), []byte(`{"text": "x y", "type": "rumour"}`+"\n"), 0o644))
	_, errOut, code = sb.run("import", "bad.jsonl")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "nothing imported, every memory was refused")
	_, errOut, code = sb.run("import", "no-such-file.md")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "cannot read no-such-file.md")
	_, _, code = sb.run("import")
	require.Equal(t, 2, code)
}

func findText(t *testing.T, byText map[string]int, prefix string) int {
	t.Helper()
	for text, i := range byText {
		if strings.HasPrefix(text, prefix) {
			return i
		}
	}
	t.Fatalf("no memory starts with %q", prefix)
	return -1
}

// TestExportImportRoundTrip: a JSON or JSONL export imported into another
// repository restores every memory unchanged (the import only records the
// file as its origin), and a second round trip changes nothing at all.
func TestExportImportRoundTrip(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	add := func(args ...string) string {
		var m struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, append([]string{"add", "--json"}, args...)...)), &m))
		return m.ID
	}
	old := add("--type", "decision", "--", "We deploy with Heroku")
	add("--supersedes", old, "--type", "decision", "--tag", "deploy", "--key", "where do we host", "--", "We deploy with Fly.io, not Heroku")
	pinned := add("--type", "gotcha", "--pin", "--path", "server/auth.ts", "--source", "verified", "--", "requireAdmin throws ERR_NO_SESSION before login:\n\n    call loadSession() first")
	tentative := add("--tentative", "--type", "command", "--", "Run `make test` before pushing")
	mustRun(t, sb, "confirm", pinned)
	mustRun(t, sb, "dispute", tentative, "--reason", "the Makefile has no test target")
	mustRun(t, sb, "add", "--private", "--", "my private note stays out of the project export")

	exportA := mustRun(t, sb, "export", "--format", "json", "--all")
	require.NotContains(t, exportA, "private note")
	jsonl := mustRun(t, sb, "export", "--format", "jsonl", "--all")
	require.Equal(t, 4, strings.Count(jsonl, "\n"))

	newRepo := func(name string) string {
		dir := filepath.Join(sb.home, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
		require.NoError(t, err, string(out))
		gitstoretest.CheckedByGit(t, dir)
		return dir
	}
	exportOf := func(dir string) []map[string]any {
		out, errOut, code := sb.runIn(dir, "export", "--format", "json", "--all")
		require.Equal(t, 0, code, errOut)
		var v []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &v))
		return v
	}
	for _, tc := range []struct{ file, data string }{{"memory.json", exportA}, {"memory.jsonl", jsonl}} {
		t.Run(tc.file, func(t *testing.T) {
			b := newRepo("b-" + tc.file)
			require.NoError(t, os.WriteFile(filepath.Join(b, tc.file), []byte(tc.data), 0o644))
			out, errOut, code := sb.runIn(b, "import", tc.file)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "4 added, 0 reinforced, 0 unchanged, 0 refused")
			got := exportOf(b)
			var want []map[string]any
			require.NoError(t, json.Unmarshal([]byte(exportA), &want))
			for i, m := range got {
				origin := m["origin"].(map[string]any)
				require.Equal(t, tc.file, origin["file"])
				delete(m, "origin")
				// the version is a digest of the whole document, which now
				// names the file it came from
				require.Len(t, m["version"], 16)
				require.NotEqual(t, want[i]["version"], m["version"])
				delete(m, "version")
			}
			for _, m := range want {
				delete(m, "version")
			}
			require.Equal(t, want, got, "the export read back is unchanged")

			// Second round trip: byte for byte.
			bOut, _, _ := sb.runIn(b, "export", "--format", "json", "--all")
			c := newRepo("c-" + tc.file)
			require.NoError(t, os.WriteFile(filepath.Join(c, "again.json"), []byte(bOut), 0o644))
			_, errOut, code = sb.runIn(c, "import", "again.json")
			require.Equal(t, 0, code, errOut)
			cOut, _, _ := sb.runIn(c, "export", "--format", "json", "--all")
			require.Equal(t, bOut, cOut)

			// Importing it into the repository it came from changes nothing.
			before := refAt(t, b, "refs/memory/main")
			out, errOut, code = sb.runIn(b, "import", tc.file)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "0 added, 0 reinforced, 4 unchanged")
			require.Equal(t, before, refAt(t, b, "refs/memory/main"))
		})
	}

	// The Markdown export reads back by type; into its own store it changes nothing.
	md := mustRun(t, sb, "export", "--all")
	require.Contains(t, md, "\n- We deploy with Fly.io, not Heroku <!-- ")
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "MEMORY.md"), []byte(md), 0o644))
	before := sb.git("rev-parse", "refs/memory/main")
	out, errOut, code := sb.run("import", "MEMORY.md")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "0 added, 0 reinforced, 3 unchanged, 1 refused")
	require.Equal(t, before, sb.git("rev-parse", "refs/memory/main"))
	d := newRepo("d")
	require.NoError(t, os.WriteFile(filepath.Join(d, "MEMORY.md"), []byte(md), 0o644))
	_, errOut, code = sb.runIn(d, "import", "MEMORY.md")
	require.Equal(t, 0, code, errOut)
	var ms []struct{ Type, Text string }
	listed, _, _ := sb.runIn(d, "list", "--json")
	require.NoError(t, json.Unmarshal([]byte(listed), &ms))
	require.ElementsMatch(t, []struct{ Type, Text string }{
		{"decision", "We deploy with Fly.io, not Heroku"},
		{"gotcha", "requireAdmin throws ERR_NO_SESSION before login:\n\n    call loadSession() first"},
		{"command", "Run `make test` before pushing"},
	}, ms)
}

// TestImportSkipsInstallBlock: the block git mem install writes into
// CLAUDE.md is about git-mem, not the project: import leaves it out.
func TestImportSkipsInstallBlock(t *testing.T) {
	// the block as install appends it to a file: after a blank line
	claude := []byte("# Project\n\n- Bookings are stored in UTC, always.\n\n" +
		install.InstructionsBegin + "\n" + install.Instructions + "\n" + install.InstructionsEnd + "\n")
	items, err := memfile.Parse("CLAUDE.md", claude)
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.Equal(t, "Bookings are stored in UTC, always.", items[0].Text)
}
