package secret

import "sync"

// keywordSet records which rule keywords occur in a text, one bit each.
type keywordSet [4]uint64

func (s *keywordSet) set(id int)      { s[id/64] |= 1 << (id % 64) }
func (s *keywordSet) has(id int) bool { return s[id/64]&(1<<(id%64)) != 0 }

// keywordIndex holds every rule's keywords, grouped by first byte, so that
// one pass over a text tells which rules can match at all.
type keywordIndex struct {
	words   []string
	byFirst [256][]keywordEntry
}

type keywordEntry struct {
	id   int
	word string
}

// The rules are compiled on the first Scan, not at program start: git-mem's
// hooks start a process per prompt and never scan, so they must not pay for it.
var (
	rulesOnce    sync.Once
	tokenRules   []rule
	contextRules []rule
	keywords     *keywordIndex
)

func loadRules() {
	rulesOnce.Do(func() {
		tokenRules = append(newTokenRules(), newVendorRules()...)
		contextRules = newContextRules()
		keywords = newKeywordIndex()
	})
}

// newKeywordIndex numbers the keywords of every rule and stores the numbers in
// the rules (kwIDs).
func newKeywordIndex() *keywordIndex {
	ix := &keywordIndex{}
	ids := map[string]int{}
	for _, rules := range [][]rule{tokenRules, contextRules} {
		for i := range rules {
			r := &rules[i]
			for _, k := range r.keywords {
				if k == "" || k != asciiLower(k) {
					panic("secret: keyword must be lower-case and non-empty: " + k)
				}
				id, ok := ids[k]
				if !ok {
					id = len(ix.words)
					if id >= len(keywordSet{})*64 {
						panic("secret: too many keywords")
					}
					ids[k] = id
					ix.words = append(ix.words, k)
					ix.byFirst[k[0]] = append(ix.byFirst[k[0]], keywordEntry{id, k})
				}
				r.kwIDs = append(r.kwIDs, id)
			}
		}
	}
	return ix
}

// scan returns the keywords that occur in lower, a lower-cased text.
func (ix *keywordIndex) scan(lower string) keywordSet {
	var found keywordSet
	for i := 0; i < len(lower); i++ {
		entries := ix.byFirst[lower[i]]
		if len(entries) == 0 {
			continue
		}
		rest := lower[i:]
		for _, e := range entries {
			w := e.word
			if len(rest) >= len(w) && (len(w) < 2 || rest[1] == w[1]) && rest[:len(w)] == w {
				found.set(e.id)
			}
		}
	}
	return found
}
