package index

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
