package secret

import (
	"fmt"
	"sort"
)

// Finding is one credential found in a text.
type Finding struct {
	// Kind is a human name for what was found, e.g. "GitHub token",
	// "AWS access key id", "private key block", "JWT",
	// "connection string with password", "password assignment",
	// "high-entropy value".
	Kind string
	// Start and End are byte offsets in the scanned text: text[Start:End] is
	// the credential (for an assignment, its value; for a URL, the whole URL).
	Start, End int
}

// String names the finding without repeating the credential, e.g.
// "GitHub token at byte 17", so it is safe to print or log.
func (f Finding) String() string {
	return fmt.Sprintf("%s at byte %d", f.Kind, f.Start)
}

// Scan returns every credential found in text, in order of position
// (Start, then End). It returns nil when there is none. Findings never
// overlap: where a specific rule (a known token format) and a generic one (an
// assignment, a URL, an entropy check) cover the same bytes, the specific one
// is kept. Scan is safe for concurrent use.
func Scan(text string) []Finding {
	if len(text) == 0 {
		return nil
	}
	loadRules()
	lower := asciiLower(text)

	found := keywords.scan(lower)

	var specific, generic, entropic []candidate
	for i := range tokenRules {
		specific = tokenRules[i].find(text, lower, &found, i, specific)
	}
	for i := range contextRules {
		generic = contextRules[i].find(text, lower, &found, i, generic)
	}
	generic, entropic = scanAssignments(text, generic, entropic)
	generic = scanProse(text, lower, generic)

	var kept []Finding
	kept = keepDisjoint(kept, specific)
	kept = keepDisjoint(kept, generic)
	kept = keepDisjoint(kept, entropic)
	if len(kept) == 0 {
		return nil
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].Start != kept[j].Start {
			return kept[i].Start < kept[j].Start
		}
		return kept[i].End < kept[j].End
	})
	return kept
}

// candidate is a finding before overlaps are resolved; prio orders rules of
// the same tier that match at the same position (lower wins).
type candidate struct {
	Finding
	prio int
}

// keepDisjoint adds to kept, in order of position then priority, each
// candidate that overlaps nothing kept so far.
func keepDisjoint(kept []Finding, cands []candidate) []Finding {
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Start != cands[j].Start {
			return cands[i].Start < cands[j].Start
		}
		if cands[i].prio != cands[j].prio {
			return cands[i].prio < cands[j].prio
		}
		return cands[i].End > cands[j].End
	})
	base := len(kept)
	for _, c := range cands {
		if c.End <= c.Start {
			continue
		}
		clash := false
		for _, k := range kept[:base] {
			if c.Start < k.End && k.Start < c.End {
				clash = true
				break
			}
		}
		// Candidates of this tier are visited by Start, so only the last one
		// kept in this tier can overlap.
		if !clash && len(kept) > base {
			last := kept[len(kept)-1]
			clash = c.Start < last.End
		}
		if !clash {
			kept = append(kept, c.Finding)
		}
	}
	return kept
}

// asciiLower lower-cases ASCII letters only, so byte offsets are unchanged.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}
