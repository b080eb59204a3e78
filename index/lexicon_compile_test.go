package index

import (
	"fmt"
	"sort"
	"strings"
)

// The lexicon's compiler: go test ./index -run TestLexicon -update analyzes the
// people-written vocabulary files into lexicon.txt, which the package reads.

// compileLexicon analyzes the people-written files into lexicon.txt's text.
func compileLexicon(thesaurusSource, conceptSource string) string {
	syn, phrases := parseThesaurus(thesaurusSource)
	lx := &lexicon{built: map[byte]map[string][]string{'s': syn, 'p': {}, 'e': {}}}
	for words, term := range phrases {
		lx.built['p'][words] = []string{term}
		lx.built['e'][words[strings.LastIndexByte(words, ' ')+1:]] = nil
	}
	lx.built['c'] = parseConcepts(conceptSource, lx)
	var lines []string
	for kind, table := range lx.built {
		for key, vals := range table {
			lines = append(lines, string(kind)+"\t"+key+"\t"+strings.Join(vals, " "))
		}
	}
	sort.Strings(lines)
	body := "# Generated from thesaurus.txt, glossary.txt and concepts.txt by\n" +
		"# go test ./index -run TestLexicon -update; do not edit (see lexicon.go).\n" +
		strings.Join(lines, "\n") + "\n"
	return fmt.Sprintf("%s%08x\n", printPrefix, printOf(body)) + body
}

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
