package memfile

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

var typeHeadings = map[string]string{
	gitstore.TypeFact:       "Facts",
	gitstore.TypeDecision:   "Decisions",
	gitstore.TypeGotcha:     "Gotchas",
	gitstore.TypeConvention: "Conventions",
	gitstore.TypeCommand:    "Commands",
	gitstore.TypePreference: "Preferences",
	gitstore.TypeHandoff:    "Handoffs",
	gitstore.TypeSession:    "Session notes",
}

// TypeHeading is the section heading of a type in the Markdown export.
func TypeHeading(t string) string {
	if h, ok := typeHeadings[t]; ok {
		return h
	}
	return t
}

// MarkdownOptions say what the Markdown export's header says.
type MarkdownOptions struct {
	// Title is the first heading ("Project memory").
	Title string
	// From names the store ("refs/memory/main").
	From string
	// Now dates the export and decides which memories are retired.
	Now time.Time
}

// WriteMarkdown writes memories for people: one section per type (in the
// order of gitstore.Types), each memory a list item, newest first as given.
// A comment after each memory holds its id (and "retired" for a superseded
// or expired one), so that git mem import reads the file back by type and
// recognizes memories the store already holds.
func WriteMarkdown(w io.Writer, ms []*gitstore.Memory, o MarkdownOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", o.Title)
	b.WriteString(exportMarker + ": git mem import reads this file back; the comment after each memory is its id -->\n\n")
	n := fmt.Sprintf("%d memories", len(ms))
	if len(ms) == 1 {
		n = "1 memory"
	}
	fmt.Fprintf(&b, "%s from %s, exported on %s.\n", n, o.From, o.Now.UTC().Format(time.DateOnly))
	byType := map[string][]*gitstore.Memory{}
	for _, m := range ms {
		byType[m.Type] = append(byType[m.Type], m)
	}
	for _, t := range gitstore.Types {
		if len(byType[t]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", TypeHeading(t))
		for _, m := range byType[t] {
			note := ""
			if m.Retired(o.Now) {
				note = " retired"
			}
			item := listItem(m.Text)
			if !readsBack(t, item, m.ID, m.Text) {
				// a text no list item can carry exactly (a line that is only
				// spaces, spaces around it, a comment): a one-line summary for
				// people, the exact text for import in the comment
				item = "- " + summaryLine(m.Text)
				note += " text:" + exactText(m.Text)
			}
			b.WriteString(item)
			if m.Retired(o.Now) {
				if m.SupersededBy != "" {
					b.WriteString(" *(superseded by " + gitstore.Clip(m.SupersededBy, gitstore.MinShownPrefix) + ")*")
				} else {
					b.WriteString(" *(expired)*")
				}
			}
			fmt.Fprintf(&b, " <!-- %s%s -->\n", m.ID, note)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// listItem writes a memory's text as a list item: its first line after the
// bullet, the others indented to it.
func listItem(text string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case i == 0:
			b.WriteString("- " + l)
		case strings.TrimSpace(l) == "":
			b.WriteString("\n")
		default:
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}

// readsBack reports whether import reads item back as exactly this text.
func readsBack(typ, item, id, text string) bool {
	doc := exportMarker + " -->\n\n## " + TypeHeading(typ) + "\n\n" + item + " <!-- " + id + " -->\n"
	items := parseMarkdown("MEMORY.md", doc)
	return len(items) == 1 && items[0].Text == text && items[0].ID == id
}

// summaryLine is the first non-blank line of a text, clipped, with the
// characters that would open a comment or an HTML tag written as entities
// (which Markdown shows as themselves).
func summaryLine(text string) string {
	first := ""
	for _, l := range strings.Split(text, "\n") {
		if first = strings.TrimSpace(l); first != "" {
			break
		}
	}
	first = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(gitstore.Summary(first, 100))
	if first == "" {
		first = "(blank)"
	}
	return first
}

// exactText is text as a JSON string on one line, with <, > and & escaped,
// so that it can never close the comment it is written in.
func exactText(text string) string {
	data, _ := json.Marshal(text) // a string always encodes
	return string(data)
}
