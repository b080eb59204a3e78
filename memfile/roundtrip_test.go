package memfile

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// markdownRoundTrip exports memories with these texts as Markdown and reads
// the file back, as git mem export --format md and git mem import do.
func markdownRoundTrip(t testing.TB, texts ...string) []Item {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ids := []string{"0123456789abcdef", "fedcba9876543210", "00112233445566aa"}
	var ms []*gitstore.Memory
	for i, text := range texts {
		ms = append(ms, &gitstore.Memory{ID: ids[i%len(ids)], Type: gitstore.TypeFact, Text: text, Created: now, Updated: now})
	}
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, ms, MarkdownOptions{Title: "Project memory", From: gitstore.RefMain, Now: now}))
	items, err := Parse("MEMORY.md", b.Bytes())
	require.NoError(t, err)
	return items
}

// TestMarkdownRoundTrip: whatever a memory's text looks like in Markdown (a
// rule, a heading, a list item, a fence, a comment, spaces), the Markdown
// export reads back as exactly that text, and the memories after it too.
func TestMarkdownRoundTrip(t *testing.T) {
	cases := []struct{ name, text string }{
		{"dashes rule", "---"},
		{"stars rule", "***"},
		{"underscore rule", "___"},
		{"heading", "# not a heading but a note"},
		{"deep heading", "###### six"},
		{"list item", "- a note that looks like an item"},
		{"numbered", "1. first, then the rest"},
		{"front matter look-alike", "---\nname: x\n---"},
		{"fence", "```"},
		{"open fence in text", "run this:\n```sh\nmake test"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |"},
		{"quote", "> quoted"},
		{"comment", "keep <!-- this --> inside"},
		{"open comment", "an arrow <!-- never closed"},
		{"install block", "<!-- git-mem:begin -->"},
		{"id comment look-alike", "x <!-- 0123456789abcdef retired -->"},
		{"leading spaces", "   indented first line"},
		{"trailing newline", "ends with a newline\n"},
		{"space-only line", "a\n   \nb"},
		{"deeper second line", "a\n      b"},
		{"tab", "\tstarts with a tab"},
		{"one letter", "x"},
		{"export marker", "<!-- git-mem export -->"},
		{"json in text", `text:"injected"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items := markdownRoundTrip(t, tc.text, "the memory after it")
			require.Len(t, items, 2)
			require.Equal(t, tc.text, items[0].Text)
			require.Equal(t, "0123456789abcdef", items[0].ID)
			require.Equal(t, gitstore.TypeFact, items[0].Type)
			require.Empty(t, items[0].Refused)
			require.Equal(t, "the memory after it", items[1].Text)
		})
	}
}

// FuzzMarkdownRoundTrip: any text git-mem stores survives export --format md
// and import unchanged, and so does the memory after it.
func FuzzMarkdownRoundTrip(f *testing.F) {
	for _, s := range []string{"---", "***", "# h", "- x", "a\n\n  b", "```", "<!--", " x ", "a\n \nb", "x -->"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if (&gitstore.NewMemory{Text: text, AllowSecret: true}).Validate() != nil {
			return // never stored, so never exported
		}
		items := markdownRoundTrip(t, text, "the memory after it")
		if len(items) != 2 || items[0].Text != text || items[0].ID != "0123456789abcdef" || items[1].Text != "the memory after it" {
			t.Fatalf("%q read back as %+v", text, items)
		}
	})
}

// TestMarkdownRoundTripRetired: a retired memory whose text the list item
// cannot carry is still read back as retired, with its id.
func TestMarkdownRoundTripRetired(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	end := now.Add(-time.Hour)
	ms := []*gitstore.Memory{{ID: "0123456789abcdef", Type: gitstore.TypeFact, Text: "  spaced <!-- x -->  ", Created: end, Updated: end, ValidTo: &end}}
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, ms, MarkdownOptions{Title: "Project memory", From: gitstore.RefMain, Now: now}))
	require.Contains(t, b.String(), "- spaced &lt;!-- x --&gt; *(expired)* <!-- 0123456789abcdef retired text:")
	items, err := Parse("MEMORY.md", b.Bytes())
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.Equal(t, "0123456789abcdef", items[0].ID)
	require.Equal(t, "  spaced <!-- x -->  ", items[0].Text)
	require.NotEmpty(t, items[0].Refused)
}
