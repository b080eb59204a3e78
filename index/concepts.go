package index

import "strings"

// ConceptWeight is how much a concept's term counts when a query describes
// the concept in everyday words (concepts.txt) instead of naming it.
const ConceptWeight = 0.7

// maxConceptWords is the longest description matched, in query terms.
const maxConceptWords = 3

// parseConcepts reads "term, term <- description, description" lines,
// analyzed with the phrases of lx (while lexicon.txt is compiled, the
// phrases just parsed). A term must analyze to one index term (a word or a
// thesaurus phrase); a
// description is analyzed as a query, and one whose words were several but
// whose terms are one plain word ("turn on": turn) is dropped as too vague.
func parseConcepts(text string, lx *lexicon) map[string][]string {
	out := map[string][]string{}
	seen := map[string]map[string]bool{}
	a := analyzer{lex: lx}
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
			if ts := a.analyze(t); len(ts) == 1 {
				targets = append(targets, ts[0])
			}
		}
		if len(targets) == 0 {
			continue
		}
		for _, d := range strings.Split(right, ",") {
			words := strings.Fields(d)
			ts := a.queryTerms(d)
			if len(ts) == 0 || len(ts) > maxConceptWords || (len(words) > 1 && len(ts) == 1 && plainWordOf(ts[0], words)) {
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

// plainWordOf reports whether term is one of the words, analyzed alone (not
// a phrase they join into).
func plainWordOf(term string, words []string) bool {
	for _, w := range words {
		if phraseWord(strings.ToLower(w)) == term {
			return true
		}
	}
	return false
}

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
