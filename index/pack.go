package index

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-mem/git-mem/gitstore"
)

// Budget packing. A budget is given in tokens and estimated as
// CharsPerToken characters (Unicode code points) per token, the usual figure
// for English text and code with current tokenizers; a hard character cap
// (a hook's limit) applies on top. Items are taken in rank order; one that
// does not fit is skipped and the next is tried (greedy). A memory longer
// than MaxItemChars is cut there and ends with a pointer to its id. Room for
// the last line, which says how many more matched and how to get them, is
// reserved from the start, so the whole text always fits.

// CharsPerToken is the token estimate used by budgets.
const CharsPerToken = 4

// MaxItemChars is the length at which a memory's text is cut in packed output.
const MaxItemChars = 600

// footerReserve is the room kept for the last line.
const footerReserve = 160

// Packer fills a character budget with lines.
type Packer struct {
	limit int
	used  int
	lines []string
	// Shown counts items added; Skipped counts items that did not fit.
	Shown, Skipped int
}

// NewPacker returns a packer for budgetTokens (0: no token budget) and
// maxChars (0: no character cap); with neither, 8,000 characters.
func NewPacker(budgetTokens, maxChars int) *Packer {
	limit := 0
	if budgetTokens > 0 {
		limit = budgetTokens * CharsPerToken
	}
	if maxChars > 0 && (limit == 0 || maxChars < limit) {
		limit = maxChars
	}
	if limit == 0 {
		limit = 8000
	}
	return &Packer{limit: limit}
}

// Remaining is how many characters can still be added (the footer's room excluded).
func (p *Packer) Remaining() int { return max(0, p.limit-footerReserve-p.used) }

func (p *Packer) fits(s string) bool {
	return utf8.RuneCountInString(s)+1 <= p.Remaining()
}

// Line adds a line that is not an item (a heading); false when it does not fit.
func (p *Packer) Line(s string) bool {
	if !p.fits(s) {
		return false
	}
	p.lines = append(p.lines, s)
	p.used += utf8.RuneCountInString(s) + 1
	return true
}

// Add adds an item (one or more lines); when it does not fit it is skipped.
func (p *Packer) Add(item string) bool {
	if !p.fits(item) {
		p.Skipped++
		return false
	}
	p.lines = append(p.lines, item)
	p.used += utf8.RuneCountInString(item) + 1
	p.Shown++
	return true
}

// Text returns the packed lines and, when footer is not empty, it as the last
// line (cut to the reserved room).
func (p *Packer) Text(footer string) string {
	lines := p.lines
	if footer != "" {
		lines = append(lines[:len(lines):len(lines)], cutRunes(footer, footerReserve-1, ""))
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func cutRunes(s string, n int, tail string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(0, n-utf8.RuneCountInString(tail))]) + tail
}

// LowTrust is the trust under which a memory is never injected by hooks or
// boot (docs/architecture.md, trust and lifecycle); recall still finds it, marked as low-trust.
const LowTrust = 0.40

// FormatHit renders one memory for an agent or a person: id, type, trust, how
// likely it is what the query is about (when it was recalled for one) and
// who wrote it, the text (cut at MaxItemChars with a pointer to the id), and
// a staleness warning.
func FormatHit(h Hit, short string) string {
	m := h.Memory
	var meta []string
	meta = append(meta, short, m.Type, fmt.Sprintf("trust %.2f", h.Trust))
	if h.Trust < LowTrust {
		meta = append(meta, "low trust: verify before relying on it")
	}
	if h.Confidence > 0 {
		meta = append(meta, ConfidenceLabel(h.Confidence)+" match")
	}
	if h.Scope != "" && h.Scope != gitstore.ScopeProject {
		meta = append(meta, string(h.Scope))
	}
	if by := Author(m); by != "" {
		meta = append(meta, "by "+by)
	}
	if m.SupersededBy != "" {
		meta = append(meta, "superseded by "+m.SupersededBy[:min(len(m.SupersededBy), gitstore.MinShownPrefix)])
	}
	text := strings.Join(strings.Fields(m.Text), " ")
	text = cutRunes(text, MaxItemChars, fmt.Sprintf("… [cut: git mem show %s]", short))
	s := "- [" + strings.Join(meta, ", ") + "] " + text
	if h.Stale {
		s += "\n  possibly stale: " + h.StaleReason
	}
	return s
}

// Author is who wrote a memory, as shown to agents: "Name via agent".
func Author(m *gitstore.Memory) string {
	name := m.Author
	if i := strings.Index(name, " <"); i > 0 {
		name = name[:i]
	}
	switch {
	case name != "" && m.Agent != "":
		return name + " via " + m.Agent
	case m.Agent != "":
		return m.Agent
	}
	return name
}

// ShortIDs returns display ids for hits that are unique in the set's
// stores, not only among the hits (gitstore.Set.ShortIDs): an id shown must
// be one git mem show accepts, at any size of the store. Without a set, or
// when the stores cannot be read, the ids are unique among the hits.
func ShortIDs(set *gitstore.Set, hits []Hit) map[string]string {
	return Access{}.ShortIDs(set, hits)
}

// ShortIDs is the package's ShortIDs with this access.
func (a Access) ShortIDs(set *gitstore.Set, hits []Hit) map[string]string {
	ids := hitIDs(hits)
	if set != nil {
		if short, err := shortIDs(set, ids, a); err == nil {
			return short
		}
	}
	return gitstore.ShortIDs(ids)
}

func hitIDs(hits []Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

// Pack renders a recall result within a budget, with display ids unique in
// the set's stores (ShortIDs), and returns the hits that fit. more is the
// footer hint, e.g. "git mem recall --limit 30 -- QUERY"; the footer is
// written only when something matched that is not shown.
func Pack(set *gitstore.Set, res *Result, budgetTokens, maxChars int, more string) (text string, shown []Hit) {
	short := ShortIDs(set, res.Hits)
	p := NewPacker(budgetTokens, maxChars)
	for _, h := range res.Hits {
		if p.Add(FormatHit(h, short[h.Memory.ID])) {
			shown = append(shown, h)
		}
	}
	footer := ""
	if rest := res.Matched - p.Shown; rest > 0 {
		footer = fmt.Sprintf("%d more matched: %s", rest, more)
	}
	return p.Text(footer), shown
}
