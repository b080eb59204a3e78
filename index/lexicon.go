package index

import (
	_ "embed"
	"hash/crc32"
	"strconv"
	"strings"
	"sync"
)

// The vocabulary recall reads at run time is compiled: thesaurus.txt,
// glossary.txt and concepts.txt are written by people, and lexicon.txt is
// what they analyze to (every word stemmed, every phrase joined), generated
// by "go test ./index -run TestLexicon -update" and checked by the same test.
// Analyzing some ten thousand words, or even reading the compiled lines
// into maps, would cost a hook process more than the rest of a prompt, at
// every prompt: lookups are binary searches over the sorted lines.
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
	// lines are lexicon.txt's sorted lines, searched where they lie: a
	// hook process looks up a few dozen words and exits, and a table of
	// the nine thousand lines would cost it more than the lookups
	lines string
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
	// lo and hi are line starts; the first line not before prefix is in
	// [lo, hi]
	t := lx.lines
	lo, hi := 0, len(t)
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(t[lo:mid], '\n') + 1
		end := len(t)
		if i := strings.IndexByte(t[start:], '\n'); i >= 0 {
			end = start + i
		}
		if t[start:end] < prefix {
			lo = end + 1
		} else {
			hi = start
		}
	}
	if lo >= len(t) || !strings.HasPrefix(t[lo:], prefix) {
		return nil, false
	}
	line := t[lo+len(prefix):]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return strings.Fields(line), true
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
	// the header's comment lines come first
	for strings.HasPrefix(text, "#") {
		_, text, _ = strings.Cut(text, "\n")
	}
	return &lexicon{lines: text}
}
