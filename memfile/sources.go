package memfile

import (
	"regexp"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// claudeTypes maps the types of Claude Code's memory topic files to memory
// types: what the user said about themselves or how to work is a preference.
var claudeTypes = map[string]string{
	"user":      gitstore.TypePreference,
	"feedback":  gitstore.TypePreference,
	"project":   "",
	"reference": "",
}

// claudeTopic reads a topic file of Claude Code's project memory (front
// matter with name, description and type): one memory, its body.
func claudeTopic(fm map[string]string, body []line) (Item, bool) {
	typ, ok := claudeTypes[strings.ToLower(fm["type"])]
	if !ok || fm["name"] == "" && fm["description"] == "" {
		return Item{}, false
	}
	body, _ = stripComments(body)
	var text []string
	first := 0
	for _, l := range body {
		if first == 0 && strings.TrimSpace(l.s) == "" {
			continue
		}
		if first == 0 {
			first = l.n
		}
		text = append(text, l.s)
	}
	it := Item{Text: strings.TrimSpace(strings.Join(text, "\n")), Line: first}
	if it.Text == "" {
		it.Text = fm["description"]
	}
	for _, k := range []string{strings.NewReplacer("-", " ", "_", " ").Replace(fm["name"]), fm["description"]} {
		if k != "" && len(k) <= gitstore.MaxKeyBytes {
			it.Keys = append(it.Keys, k)
		}
	}
	it.Type = typ
	if typ == "" {
		it.Type = InferType(it.Text, "")
	}
	return it, true
}

var (
	adrTitleNumber = regexp.MustCompile(`^(?i)(adr[-\s]?)?\d+[.:]?\s+`)
	mdLinkText     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	statusLine     = regexp.MustCompile(`(?i)^\*{0,2}status\*{0,2}\s*:\s*\*{0,2}\s*(.+)$`)
)

// decisionRecord reads an architecture decision record: a Decision section
// and a Status or Context section. Its memory is the title, the decision and
// the context as the reason.
func decisionRecord(body []line) (Item, bool) {
	sections := map[string][]string{}
	var title, current, status string
	titleLine := 0
	for _, l := range body {
		if m := headingLine().FindStringSubmatch(l.s); m != nil {
			h := plainHeading(m[2])
			if len(m[1]) == 1 && title == "" {
				title, titleLine = adrTitleNumber.ReplaceAllString(h, ""), l.n
				current = ""
				continue
			}
			current = strings.ToLower(h)
			switch {
			case strings.HasPrefix(current, "decision"):
				current = "decision"
			case strings.HasPrefix(current, "context"):
				current = "context"
			case strings.HasPrefix(current, "status"):
				current = "status"
			}
			continue
		}
		if m := statusLine.FindStringSubmatch(strings.TrimSpace(l.s)); m != nil && current == "" {
			status = m[1]
			continue
		}
		if current != "" {
			sections[current] = append(sections[current], l.s)
		}
	}
	decision := unwrap(sections["decision"])
	if decision == "" || sections["status"] == nil && sections["context"] == nil {
		return Item{}, false
	}
	if s := unwrap(sections["status"]); s != "" {
		status = s
	}
	if title == "" {
		title = "Decision"
	}
	it := Item{Type: gitstore.TypeDecision, Line: max(titleLine, 1), Tags: []string{"adr"}}
	if len(title) <= gitstore.MaxKeyBytes {
		it.Keys = []string{title}
	}
	text := title + "\n\n" + decision
	if why := unwrap(sections["context"]); why != "" {
		room := gitstore.MaxTextBytes - len(text) - len("\n\nWhy: ")
		if len(why) > room {
			why = cut(why, room-len("…")) + "…"
		}
		if room > 40 {
			text += "\n\nWhy: " + why
		}
	}
	it.Text = text
	st := strings.ToLower(status)
	switch {
	case strings.Contains(st, "supersed"), strings.Contains(st, "deprecat"), strings.Contains(st, "reject"):
		it.Refused = "the decision record's status is " + mdLinkText.ReplaceAllString(strings.TrimSpace(strings.Split(status, "\n")[0]), "$1") + ": not a current decision"
	case strings.Contains(st, "propos"), strings.Contains(st, "draft"):
		it.Tentative = true
	}
	return it, true
}

// unwrap joins the lines of Markdown text: soft-wrapped lines into one,
// paragraphs and list items each on a line of their own.
func unwrap(lines []string) string {
	var out []string
	para := ""
	for _, s := range lines {
		t := strings.TrimSpace(s)
		switch {
		case t == "":
			if para != "" {
				out, para = append(out, para), ""
			}
		case bulletLine().MatchString(s) || para == "":
			if para != "" {
				out = append(out, para)
			}
			para = t
		default:
			para += " " + t
		}
	}
	if para != "" {
		out = append(out, para)
	}
	return strings.Join(out, "\n")
}

// cut returns the longest prefix of s of at most n bytes that ends on a rune.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
