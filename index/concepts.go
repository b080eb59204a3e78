package index

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed concepts.txt
var conceptsText string

// ConceptWeight is how much a concept's term counts when a query describes
// the concept in everyday words (concepts.txt) instead of naming it.
const ConceptWeight = 0.7

// maxConceptWords is the longest description matched, in query terms.
const maxConceptWords = 3

var (
	conceptsOnce sync.Once
	// concepts maps a description, as space-separated query terms ("hide
	// unfinish"), to the analyzed terms of the concepts it describes.
	concepts map[string][]string
)

func loadConcepts() map[string][]string {
	conceptsOnce.Do(func() { concepts = parseConcepts(conceptsText) })
	return concepts
}

// parseConcepts reads "term, term <- description, description" lines. A
// term must analyze to one index term (a word or a thesaurus phrase); a
// description is analyzed as a query, and one whose words were several but
// whose terms are one plain word ("turn on": turn) is dropped as too vague.
func parseConcepts(text string) map[string][]string {
	out := map[string][]string{}
	seen := map[string]map[string]bool{}
	phrases, _ := phraseTable()
	joined := make(map[string]bool, len(phrases))
	for _, tok := range phrases {
		joined[tok] = true
	}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		left, right, ok := strings.Cut(line, "<-")
		if !ok {
			continue
		}
		var targets []string
		for _, t := range strings.Split(left, ",") {
			if ts := Analyze(t); len(ts) == 1 {
				targets = append(targets, ts[0])
			}
		}
		if len(targets) == 0 {
			continue
		}
		for _, d := range strings.Split(right, ",") {
			words := len(strings.Fields(d))
			ts := QueryTerms(d)
			if len(ts) == 0 || len(ts) > maxConceptWords || (words > 1 && len(ts) == 1 && !joined[ts[0]]) {
				continue
			}
			key := strings.Join(ts, " ")
			if seen[key] == nil {
				seen[key] = map[string]bool{}
			}
			for _, t := range targets {
				if !seen[key][t] && !strings.Contains(" "+key+" ", " "+t+" ") {
					seen[key][t] = true
					out[key] = append(out[key], t)
				}
			}
		}
	}
	return out
}

// describedConcepts returns, for each query term, the concept terms that the
// description it belongs to names: a description of several words matches
// consecutive query terms, and its concepts join each of their groups.
func describedConcepts(table map[string][]string, terms []string) [][]string {
	out := make([][]string, len(terms))
	for i := range terms {
		for n := 1; n <= maxConceptWords && i+n <= len(terms); n++ {
			for _, c := range table[strings.Join(terms[i:i+n], " ")] {
				for k := i; k < i+n; k++ {
					out[k] = append(out[k], c)
				}
			}
		}
	}
	return out
}
