package index

import "strings"

// ConceptWeight is how much a concept's term counts when a query describes
// the concept in everyday words (concepts.txt) instead of naming it.
const ConceptWeight = 0.7

// maxConceptWords is the longest description matched, in query terms.
const maxConceptWords = 3

// describedConcepts returns, for each query term, the concept terms that the
// description it belongs to names: a description of several words matches
// consecutive query terms, and its concepts join each of their groups.
func describedConcepts(lx *lexicon, terms []string) [][]string {
	out := make([][]string, len(terms))
	for i := range terms {
		for n := 1; n <= maxConceptWords && i+n <= len(terms); n++ {
			for _, c := range lx.concepts(strings.Join(terms[i:i+n], " ")) {
				for k := i; k < i+n; k++ {
					out[k] = append(out[k], c)
				}
			}
		}
	}
	return out
}
