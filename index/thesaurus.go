package index

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

//go:embed thesaurus.txt
var thesaurusText string

// SynonymWeight is how much a thesaurus match counts against a match of the
// query's own word.
const SynonymWeight = 0.6

var (
	thesaurusOnce sync.Once
	thesaurus     map[string][]string
)

// Synonyms returns the analyzed words sharing a thesaurus group with the
// analyzed term (itself excluded), sorted.
func Synonyms(term string) []string {
	thesaurusOnce.Do(func() { thesaurus = parseThesaurus(thesaurusText) })
	return thesaurus[term]
}

// parseThesaurus reads groups of comma-separated words, one group a line,
// "#" starting a comment. Every word is analyzed like indexed text.
func parseThesaurus(text string) map[string][]string {
	sets := map[string]map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		var group []string
		for _, w := range strings.Split(line, ",") {
			for _, t := range Analyze(w) {
				if !strings.ContainsAny(t, "_-./\\@#$") {
					group = append(group, t)
				}
			}
		}
		for _, a := range group {
			for _, b := range group {
				if a == b {
					continue
				}
				if sets[a] == nil {
					sets[a] = map[string]bool{}
				}
				sets[a][b] = true
			}
		}
	}
	out := make(map[string][]string, len(sets))
	for t, s := range sets {
		l := make([]string, 0, len(s))
		for w := range s {
			l = append(l, w)
		}
		sort.Strings(l)
		out[t] = l
	}
	return out
}
