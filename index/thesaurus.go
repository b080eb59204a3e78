package index

import (
	"sort"
	"strings"
)

// SynonymWeight is how much a thesaurus match counts against a match of the
// query's own word.
const SynonymWeight = 0.8

// maxPhraseWords is the longest thesaurus phrase, in words.
const maxPhraseWords = 3

// The thesaurus is two files in one syntax: thesaurus.txt, and glossary.txt,
// a larger list written without sight of the evaluation data. Both are
// compiled into lexicon.txt (see lexicon.go).

// Synonyms returns the analyzed words sharing a thesaurus group with the
// analyzed term (itself excluded), sorted.
func Synonyms(term string) []string { return loadLexicon().synonyms(term) }

// parseThesaurus reads groups of comma-separated entries, one group a line,
// "#" starting a comment. An entry of one word is analyzed like indexed
// text; an entry of several words (at most maxPhraseWords, stopwords
// allowed) is a phrase: its words are joined into one word, which joins the
// group, and the analysis replaces the phrase by that word wherever it occurs.
func parseThesaurus(text string) (map[string][]string, map[string]string) {
	sets := map[string]map[string]bool{}
	phrases := map[string]string{}
	plain := analyzer{noPhrase: true}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		var group []string
		for _, w := range strings.Split(line, ",") {
			if words := strings.Fields(strings.ToLower(w)); len(words) > 1 && len(words) <= maxPhraseWords {
				stems := make([]string, len(words))
				for i, x := range words {
					stems[i] = phraseWord(x)
				}
				key := strings.Join(stems, " ")
				if tok, ok := phrases[key]; ok {
					// "timed out" is "time out" once stemmed: one word for both
					group = append(group, tok)
					continue
				}
				joined := plain.analyze(strings.Join(words, ""))
				if len(joined) == 1 {
					phrases[key] = joined[0]
					group = append(group, joined[0])
				}
				continue
			}
			for _, t := range plain.analyze(w) {
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
	return out, phrases
}
