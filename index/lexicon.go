package index

import (
	_ "embed"
	"fmt"
	"hash/crc32"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The vocabulary recall reads at run time is compiled: thesaurus.txt,
// glossary.txt and concepts.txt are written by people, and lexicon.txt is
// what they analyze to (every word stemmed, every phrase joined), generated
// by "go test ./index -run TestLexicon -update" and checked by the same test.
// Analyzing some ten thousand words costs tens of milliseconds, and even
// reading the compiled lines into maps costs one, which a hook process would
// pay at every prompt: lookups are binary searches over the sorted lines.
//
// lexicon.txt lines, tab-separated, sorted:
//
//	c  a description as query terms ("hide unfinish")  the concepts it names, space-separated
//	e  the last word of a phrase ("back")
//	p  phrase words as phraseWord compares them ("roll back")  joined term ("rollback")
//	s  term  its synonyms, space-separated
//
//go:embed lexicon.txt
var lexiconText string

// lexicon is the compiled vocabulary: its sorted lines, or, while a lexicon
// is being compiled, the same tables as maps.
type lexicon struct {
	lines []string
	built map[byte]map[string][]string
}

var (
	lexiconOnce sync.Once
	compiled    *lexicon
)

// loadLexicon returns the compiled vocabulary, read once.
func loadLexicon() *lexicon {
	lexiconOnce.Do(func() { compiled = parseLexicon(lexiconText) })
	return compiled
}

// synonyms returns the synonyms of an analyzed term.
func (lx *lexicon) synonyms(term string) []string {
	s, _ := lx.lookup('s', term)
	return s
}

// concepts returns the concepts a description (query terms, space-separated) names.
func (lx *lexicon) concepts(description string) []string {
	c, _ := lx.lookup('c', description)
	return c
}

// phrase returns the joined term of a phrase's words ("roll back").
func (lx *lexicon) phrase(words string) (string, bool) {
	t, ok := lx.lookup('p', words)
	if !ok || len(t) != 1 {
		return "", false
	}
	return t[0], true
}

// endsPhrase reports whether a word is the last word of some phrase.
func (lx *lexicon) endsPhrase(word string) bool {
	_, ok := lx.lookup('e', word)
	return ok
}

func (lx *lexicon) lookup(kind byte, key string) ([]string, bool) {
	if lx.built != nil {
		v, ok := lx.built[kind][key]
		return v, ok
	}
	prefix := string(kind) + "\t" + key + "\t"
	i := sort.SearchStrings(lx.lines, prefix)
	if i < len(lx.lines) && strings.HasPrefix(lx.lines[i], prefix) {
		return strings.Fields(lx.lines[i][len(prefix):]), true
	}
	return nil, false
}

// AnalysisPrint identifies the analysis documents are indexed with beyond
// MappingVersion: thesaurus phrases ("log in") become one term in documents
// too, so an index or snapshot written with another vocabulary is rebuilt.
func AnalysisPrint() uint32 { return analysisPrint() }

// analysisPrint reads the print compileLexicon wrote in lexicon.txt's first
// line (a CRC-32C of the rest): checksumming 400 KB would cost a hook
// process more than its recall.
var analysisPrint = sync.OnceValue(func() uint32 {
	line, _, _ := strings.Cut(lexiconText, "\n")
	v, err := strconv.ParseUint(strings.TrimPrefix(line, printPrefix), 16, 32)
	if err != nil {
		return printOf(lexiconText) // not compiled by compileLexicon: still a print
	}
	return uint32(v)
})

const printPrefix = "# print "

func printOf(text string) uint32 {
	return crc32.Checksum([]byte(text), crc32.MakeTable(crc32.Castagnoli))
}

func parseLexicon(text string) *lexicon {
	lx := &lexicon{lines: make([]string, 0, strings.Count(text, "\n"))}
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if len(line) > 2 && line[1] == '\t' {
			lx.lines = append(lx.lines, line)
		}
	}
	return lx
}

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
