package memfile

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

var update = flag.Bool("update", false, "rewrite the golden files under fixtures/import/golden")

const fixtures = "../fixtures/import"

// TestParseFixtures reads each fixture and compares its items with the
// golden file of the same name under fixtures/import/golden.
func TestParseFixtures(t *testing.T) {
	cases := []struct {
		file   string
		golden string
		check  func(t *testing.T, items []Item)
	}{
		{"CLAUDE.md", "claude-md", func(t *testing.T, items []Item) {
			for _, it := range items {
				require.NotContains(t, it.Text, "memory_recall", "the git-mem instruction block is skipped")
				require.NotContains(t, it.Text, "provides guidance", "the /init boilerplate is skipped")
			}
		}},
		{"AGENTS.md", "agents-md", nil},
		{".cursor/rules/typescript.mdc", "cursor-rule", func(t *testing.T, items []Item) {
			for _, it := range items {
				require.Contains(t, it.Keys, "TypeScript conventions for the web app")
			}
		}},
		{"docs/adr/0003-use-postgres-for-bookings.md", "adr-accepted", func(t *testing.T, items []Item) {
			require.Len(t, items, 1)
			require.Equal(t, gitstore.TypeDecision, items[0].Type)
			require.Contains(t, items[0].Text, "Postgres 16")
			require.Contains(t, items[0].Text, "Why: Bookings need transactions")
		}},
		{"docs/adr/0002-use-mongodb.md", "adr-superseded", func(t *testing.T, items []Item) {
			require.Len(t, items, 1)
			require.Contains(t, items[0].Refused, "Superseded")
		}},
		{"claude-memory/MEMORY.md", "claude-memory-index", func(t *testing.T, items []Item) {
			require.Len(t, items, 1, "links to topic files are skipped")
		}},
		{"claude-memory/feedback_testing.md", "claude-memory-feedback", nil},
		{"claude-memory/user_role.md", "claude-memory-user", nil},
		{"claude-memory/project_release.md", "claude-memory-project", nil},
		{"simple.json", "simple-json", nil},
		{"simple.jsonl", "simple-jsonl", nil},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixtures, filepath.FromSlash(tc.file)))
			require.NoError(t, err)
			items, err := Parse(tc.file, data)
			require.NoError(t, err)
			got, err := json.MarshalIndent(items, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			golden := filepath.Join(fixtures, "golden", tc.golden+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./memfile -update")
			require.Equal(t, string(want), string(got))
			if tc.check != nil {
				tc.check(t, items)
			}
		})
	}
}

func TestInferType(t *testing.T) {
	cases := []struct{ text, heading, want string }{
		{"We decided to keep money as integer cents", "", gitstore.TypeDecision},
		{"Never use default exports", "", gitstore.TypeConvention},
		{"Run the tests with `go test ./...`", "", gitstore.TypeCommand},
		{"`npm run dev` starts the dev server", "", gitstore.TypeCommand},
		{"Use `zod` at API boundaries", "", gitstore.TypeFact},
		{"The Playwright suite is flaky on CI", "", gitstore.TypeGotcha},
		{"The user prefers short answers", "", gitstore.TypePreference},
		{"Bookings are stored in UTC", "", gitstore.TypeFact},
		{"Bookings are stored in UTC", "Architecture decisions", gitstore.TypeDecision},
		{"Two spaces, no tabs", "Code style", gitstore.TypeConvention},
		{"The API is on port 4000", "Commands", gitstore.TypeFact},
		{"`pnpm dev` starts the app", "Commands", gitstore.TypeCommand},
		{"Never run `git push --force` on main", "Commands", gitstore.TypeConvention},
		{"requireAdmin throws before login", "Conventions", gitstore.TypeGotcha},
	}
	for _, tc := range cases {
		t.Run(tc.text+"/"+tc.heading, func(t *testing.T) {
			require.Equal(t, tc.want, InferType(tc.text, tc.heading))
		})
	}
}

func TestParseRejectsOtherFiles(t *testing.T) {
	for name, data := range map[string]string{
		"notes.txt":     "hello",
		"settings.json": `{"permissions": {}}`,
		"broken.json":   `[{"text": `,
		"list.jsonl":    "{\"text\": \"ok\"}\nnot json\n",
	} {
		_, err := Parse(name, []byte(data))
		require.ErrorIs(t, err, ErrFormat, name)
	}
}

// TestMarkdownExportReadsBack: the Markdown export read back gives each
// memory's text, type and id, and refuses the retired ones.
func TestMarkdownExportReadsBack(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	end := now.Add(-time.Hour)
	ms := []*gitstore.Memory{
		{ID: "0123456789abcdef", Type: gitstore.TypeDecision, Text: "Bookings are stored in UTC"},
		{ID: "1123456789abcdef", Type: gitstore.TypeGotcha, Text: "requireAdmin throws before login:\n\n```ts\nawait loadSession()\n```\nthen call it"},
		{ID: "2123456789abcdef", Type: gitstore.TypeFact, Text: "We deploy with Heroku", ValidTo: &end, SupersededBy: "3123456789abcdef"},
		{ID: "3123456789abcdef", Type: gitstore.TypeFact, Text: "- a text that starts like a list item\n# and a line like a heading"},
	}
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, ms, MarkdownOptions{Title: "Project memory", From: gitstore.RefMain, Now: now}))
	golden := filepath.Join(fixtures, "golden", "export.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())

	items, err := Parse("MEMORY.md", []byte(b.String()))
	require.NoError(t, err)
	require.Len(t, items, len(ms))
	byID := map[string]Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, m := range ms {
		it := byID[m.ID]
		require.Equal(t, m.Type, it.Type, m.ID)
		if m.ValidTo != nil {
			require.NotEmpty(t, it.Refused)
			continue
		}
		require.Empty(t, it.Refused)
		require.Equal(t, m.Text, it.Text)
	}
}
