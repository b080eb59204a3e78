package memfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: no file makes Parse panic, and every item it gives has text,
// a line within the file, and valid UTF-8 when the file was.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"CLAUDE.md", "AGENTS.md", "docs/adr/0003-use-postgres-for-bookings.md", "claude-memory/feedback_testing.md", "simple.json", "simple.jsonl"} {
		data, err := os.ReadFile(filepath.Join(fixtures, filepath.FromSlash(name)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Ext(name), data)
	}
	f.Add(".md", []byte("- a\n  ```\n  b\n- c\n\n|x|\n|--|\n|y|\n<!-- git-mem:begin\n"))
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		if ext != ".md" && ext != ".json" && ext != ".jsonl" && ext != ".mdc" {
			ext = ".md"
		}
		items, err := Parse("f"+ext, data)
		if err != nil {
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, it := range items {
			if it.Line < 0 || it.Line > lines {
				t.Fatalf("line %d outside a file of %d lines", it.Line, lines)
			}
			if ext != ".json" && ext != ".jsonl" && utf8.Valid(data) && !utf8.ValidString(it.Text) {
				t.Fatalf("invalid UTF-8 from valid input: %q", it.Text)
			}
			if ext != ".json" && ext != ".jsonl" && strings.TrimSpace(it.Text) == "" {
				t.Fatalf("an empty item from %q", data)
			}
		}
	})
}
