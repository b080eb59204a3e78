package memfile

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/git-mem/git-mem/gitstore"
)

// The instruction block git mem install writes into CLAUDE.md, AGENTS.md and
// GEMINI.md (see the installer): it is about git-mem, not about the project.
const (
	blockBegin = "<!-- git-mem:begin"
	blockEnd   = "<!-- git-mem:end -->"
)

// exportMarker opens the Markdown git mem export writes: its section
// headings are the types and each memory's id follows it in a comment.
const exportMarker = "<!-- git-mem export"

var (
	headingLine = lazyRegexp(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletLine  = lazyRegexp(`^(\s*)([-*+]|\d{1,3}[.)])(\s+)(.*)$`)
	ruleLine    = lazyRegexp(`^\s{0,3}([-*_])(\s*[-*_]){2,}\s*$`)
	tableSep    = lazyRegexp(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	taskBox     = lazyRegexp(`^\[[ xX]\]\s+`)
	commentRe   = lazyRegexp(`<!--[\s\S]*?-->`)
	exportID    = lazyRegexp(`^<!--\s*([0-9a-f]{16})(\s+retired)?(?:\s+text:("(?:[^"\\]|\\.)*"))?\s*-->$`)
	mdLink      = lazyRegexp(`^\[[^\]]*\]\(([^)\s]+\.md)\)`)
	// boilerplate is the first line of a CLAUDE.md written by Claude Code's /init.
	boilerplate = lazyRegexp(`(?i)^this file provides guidance to .{1,80}? when working with code in this repository`)
)

// line is one line of a file with its 1-based number.
type line struct {
	n int
	s string
}

// frontMatter splits "---" front matter from the body: simple "key: value"
// pairs (quotes removed; lists and nesting ignored).
func frontMatter(lines []line) (map[string]string, []line) {
	if len(lines) == 0 || strings.TrimSpace(lines[0].s) != "---" {
		return nil, lines
	}
	fm := map[string]string{}
	for i := 1; i < len(lines); i++ {
		s := lines[i].s
		if t := strings.TrimSpace(s); t == "---" || t == "..." {
			return fm, lines[i+1:]
		}
		if k, v, ok := strings.Cut(s, ":"); ok && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t") {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
				v = v[1 : len(v)-1]
			}
			fm[strings.ToLower(strings.TrimSpace(k))] = v
		}
	}
	return nil, lines // no closing line: not front matter
}

// exportNote is the comment git mem export writes after a memory: its id,
// whether it is retired, and its exact text when the list item cannot carry
// it (see WriteMarkdown).
type exportNote struct {
	id      string
	retired bool
	text    string
	exact   bool // text holds the memory's text
}

// stripComments blanks the git-mem instruction block and HTML comments,
// keeping line numbers. In an export it returns the id comment of each line.
func stripComments(lines []line) ([]line, map[int]exportNote) {
	out := make([]line, 0, len(lines))
	ids := map[int]exportNote{}
	inBlock, inComment := false, false
	for i, l := range lines {
		s := l.s
		t := strings.TrimSpace(s)
		switch {
		case inBlock:
			if strings.Contains(s, blockEnd) {
				inBlock = false
			}
			s = ""
		case strings.HasPrefix(t, blockBegin):
			inBlock = !strings.Contains(s, blockEnd)
			s = ""
		case inComment:
			if j := strings.Index(s, "-->"); j >= 0 {
				inComment = false
				s = s[j+3:]
			} else {
				s = ""
			}
		}
		if !inBlock && s != "" {
			for _, c := range commentRe().FindAllString(s, -1) {
				if m := exportID().FindStringSubmatch(c); m != nil {
					n := exportNote{id: m[1], retired: m[2] != ""}
					if m[3] != "" {
						n.exact = json.Unmarshal([]byte(m[3]), &n.text) == nil
					}
					ids[i] = n
				}
			}
			s = commentRe().ReplaceAllString(s, "")
			if j := strings.Index(s, "<!--"); j >= 0 {
				inComment = true
				s = s[:j]
			}
			if strings.TrimSpace(s) == "" {
				s = ""
			}
		}
		out = append(out, line{l.n, strings.TrimRight(s, " \t")})
	}
	return out, ids
}

func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// dedent removes up to n columns of leading spaces.
func dedent(s string, n int) string {
	i := 0
	for i < len(s) && i < n && s[i] == ' ' {
		i++
	}
	return s[i:]
}

func parseMarkdown(base string, text string) []Item {
	raw := strings.Split(text, "\n")
	lines := make([]line, len(raw))
	for i, s := range raw {
		lines[i] = line{i + 1, s}
	}
	fm, body := frontMatter(lines)
	if it, ok := claudeTopic(fm, body); ok {
		return []Item{it}
	}
	export := strings.Contains(text, exportMarker)
	body, ids := stripComments(body)
	if it, ok := decisionRecord(body); ok {
		return []Item{it}
	}
	p := &mdParser{lines: body, ids: ids, export: export, index: strings.EqualFold(base, "MEMORY.md")}
	if d := fm["description"]; d != "" && len(d) <= gitstore.MaxKeyBytes {
		p.keys = []string{d}
	}
	p.run()
	return p.items
}

// mdParser turns the blocks of a Markdown body into items.
type mdParser struct {
	lines   []line
	ids     map[int]exportNote
	export  bool
	index   bool     // a Claude Code MEMORY.md: links to topic files are skipped
	keys    []string // keys every item gets (a Cursor rule's description)
	heading string   // nearest heading of level 2 or deeper
	items   []Item
	cur     *pending
	headers []string // the current table's header cells
	at      int      // index of the line being read
	next    []int    // see continues
}

// pending is the block being collected.
type pending struct {
	line      int
	from      int // index of its first line
	parts     []string
	list      bool
	content   int // column where a list item's content starts
	code      bool
	lang      string
	alone     bool // a code block on its own
	note      *exportNote
	wrapped   bool // the last part may take a soft-wrapped continuation
	afterGap  bool // a blank line was seen inside the list item
	tableText bool
}

func (p *mdParser) run() {
	inFence, fence := false, ""
	for i := 0; i < len(p.lines); i++ {
		l := p.lines[i]
		s, t := l.s, strings.TrimSpace(l.s)
		p.at = i
		if p.export && !inFence {
			if rest, ok := strings.CutPrefix(s, "- "); ok {
				// an exported memory: whatever its text looks like (a rule,
				// a heading, a fence), it is the text
				p.flush()
				p.cur = &pending{line: l.n, from: i, list: true, content: 2, parts: []string{rest}, wrapped: true}
				continue
			}
			if p.cur != nil && p.cur.list && (t == "" && p.continues(i) || t != "" && indentOf(s) >= p.cur.content) {
				// its text goes on verbatim, indented to the item
				p.cur.parts = append(p.cur.parts, "\n"+dedent(s, p.cur.content))
				continue
			}
		}
		if inFence {
			p.cur.parts = append(p.cur.parts, "\n"+dedent(s, p.cur.content))
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				inFence = false
				if p.cur.alone {
					p.flush()
				}
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			lang := strings.ToLower(strings.TrimSpace(strings.Trim(t, fence[:1])))
			indent := indentOf(s)
			attach := p.cur != nil && !p.cur.tableText && (p.cur.list && indent > 0 || strings.HasSuffix(strings.Join(p.cur.parts, ""), ":"))
			if !attach {
				p.flush()
				p.cur = &pending{line: l.n, from: i, alone: true, content: indent}
				if p.heading != "" {
					p.cur.parts = append(p.cur.parts, p.heading+":")
				}
			}
			p.cur.code, p.cur.lang, p.cur.wrapped = true, lang, false
			p.cur.parts = append(p.cur.parts, "\n"+dedent(s, p.cur.content))
			inFence = true
			continue
		}
		if t == "" {
			if p.cur != nil && p.cur.list && p.continues(i) {
				p.cur.afterGap, p.cur.wrapped = true, false
				continue
			}
			p.flush()
			continue
		}
		if m := headingLine().FindStringSubmatch(s); m != nil && indentOf(s) < 4 {
			p.flush()
			p.headers = nil
			if len(m[1]) > 1 {
				p.heading = plainHeading(m[2])
			}
			continue
		}
		if ruleLine().MatchString(s) {
			p.flush()
			continue
		}
		if strings.HasPrefix(t, "|") {
			p.tableRow(l, t, i)
			continue
		}
		p.headers = nil
		if m := bulletLine().FindStringSubmatch(s); m != nil {
			indent := indentOf(m[1])
			content := taskBox().ReplaceAllString(m[4], "")
			if p.cur != nil && p.cur.list && indent >= p.cur.content-1 && indent > 0 {
				p.cur.parts = append(p.cur.parts, "\n"+strings.Repeat(" ", max(0, indent-p.cur.content))+"- "+content)
				p.cur.wrapped = true
				continue
			}
			p.flush()
			p.cur = &pending{line: l.n, from: i, list: true, content: indent + len(m[2]) + len(m[3]), parts: []string{content}, wrapped: true}
			continue
		}
		t = strings.TrimSpace(strings.TrimLeft(t, ">"))
		switch {
		case p.cur == nil || p.cur.tableText:
			p.flush()
			p.cur = &pending{line: l.n, from: i, parts: []string{t}, wrapped: true}
		case p.cur.wrapped && !p.cur.afterGap:
			p.cur.parts[len(p.cur.parts)-1] += " " + t
		default:
			p.cur.parts = append(p.cur.parts, "\n"+t)
			p.cur.wrapped = true
		}
	}
	p.at = len(p.lines)
	p.flush()
}

// continues reports whether the list item goes on after the blank line at
// i: the next text is indented to its content.
func (p *mdParser) continues(i int) bool {
	if p.next == nil {
		// the next non-blank line of each line, found once: asking at every
		// blank line of a long run would be quadratic in the run
		p.next = make([]int, len(p.lines)+1)
		p.next[len(p.lines)] = len(p.lines)
		for j := len(p.lines) - 1; j >= 0; j-- {
			p.next[j] = p.next[j+1]
			if strings.TrimSpace(p.lines[j].s) != "" {
				p.next[j] = j
			}
		}
	}
	j := p.next[i+1]
	if j == len(p.lines) {
		return false
	}
	s := p.lines[j].s
	return indentOf(s) >= p.cur.content && indentOf(s) > 0
}

// tableRow makes each body row of a table one item: "header: cell; …".
func (p *mdParser) tableRow(l line, t string, i int) {
	cells := splitRow(t)
	if tableSep().MatchString(t) {
		return
	}
	if i+1 < len(p.lines) && tableSep().MatchString(p.lines[i+1].s) {
		p.flush()
		p.headers = cells
		return
	}
	p.flush()
	var parts []string
	for k, c := range cells {
		if c == "" {
			continue
		}
		if k < len(p.headers) && p.headers[k] != "" {
			c = p.headers[k] + ": " + c
		}
		parts = append(parts, c)
	}
	p.cur = &pending{line: l.n, from: i, parts: []string{strings.Join(parts, "; ")}, tableText: true}
	p.flush()
}

func splitRow(t string) []string {
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	var cells []string
	for _, c := range strings.Split(t, "|") {
		cells = append(cells, strings.TrimSpace(c))
	}
	return cells
}

// plainHeading drops emphasis and code marks from a heading.
func plainHeading(h string) string {
	return strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(h))
}

// exportTypes maps the section headings of git mem export to types.
var exportTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range gitstore.Types {
		m[strings.ToLower(TypeHeading(t))] = t
	}
	return m
}()

func (p *mdParser) flush() {
	c := p.cur
	p.cur = nil
	if c == nil {
		return
	}
	end := p.at
	if c.alone || c.tableText {
		end++ // flushed on its own last line
	}
	for k := c.from; k < end; k++ {
		if n, ok := p.ids[k]; ok {
			c.note = &n
		}
	}
	text := strings.TrimSpace(strings.Join(c.parts, ""))
	if p.export && c.note != nil && c.note.exact {
		text = c.note.text // the export could not write it as a list item
	}
	if strings.TrimSpace(text) == "" || boilerplate().MatchString(text) {
		return
	}
	if p.index && mdLink().MatchString(text) {
		return // a line of Claude Code's MEMORY.md index: the topic file is read itself
	}
	if p.export && c.note == nil {
		return // the export's own header
	}
	if !p.export && !c.code && len(strings.Fields(text)) < 2 && utf8.RuneCountInString(text) < 12 {
		return // a label, not a fact
	}
	it := Item{Text: text, Line: c.line}
	if p.heading != "" && len(p.heading) <= gitstore.MaxKeyBytes && !p.export {
		it.Keys = append(it.Keys, p.heading)
	}
	it.Keys = append(it.Keys, p.keys...)
	switch {
	case p.export:
		it.Type = exportTypes[strings.ToLower(p.heading)]
		if it.Type == "" {
			it.Type = InferType(text, p.heading)
		}
		it.ID = c.note.id
		if c.note.retired {
			it.Refused = "superseded or expired in the export it comes from"
		}
	case c.alone && shellLangs[c.lang]:
		it.Type = gitstore.TypeCommand
	default:
		it.Type = InferType(text, p.heading)
	}
	p.items = append(p.items, it)
}
