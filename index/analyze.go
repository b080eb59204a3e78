package index

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// Analysis (the same for memories and queries, in the index and in the
// fallback scan):
//
//   - The text is cut into chunks: runs of letters, digits and the identifier
//     and path characters _ - . / \ @ # $. Leading and trailing punctuation of a
//     chunk is dropped ("UTC." is "UTC").
//   - A chunk made of several parts (server/auth.ts, requireAdmin,
//     ERR_NO_SESSION, kebab-case) yields itself, lower-cased, as one exact
//     term, then a path's file name when it has parts of its own (auth.ts),
//     and then each part.
//   - Parts are split at the separators and at camelCase boundaries
//     (requireAdmin: require, admin; HTTPServer: http, server), lower-cased,
//     and dropped when they are stopwords or single letters; letters-only
//     parts are reduced to their English stem (Snowball): deploys, deployed
//     and deploying are all "deploy".
//
// Queries are analyzed the same way, then lose question fillers ("use",
// "need", "work"…), keep each term once, and are cut to MaxQueryTerms.
// Ranking then scores the rarest of them in the store (rank.go), so a
// pasted log is matched on its distinctive words wherever they stand.

// MaxQueryTerms is the most terms a query keeps: enough for a pasted error
// or a long prompt, a bound on the work of one recall.
const MaxQueryTerms = 48

// MinQueryTerms is the fewest usable terms a prompt needs before a hook
// injects anything (see Injectable).
const MinQueryTerms = 2

// maxAnalyzeBytes bounds the text analyzed for one query: a pasted log of
// megabytes costs no more than its first part.
const maxAnalyzeBytes = 16 << 10

// maxChunkBytes bounds one chunk; longer runs (base64, minified code) are not words.
const maxChunkBytes = 128

// Analyze returns the index terms of a text, in order, with repetitions (term
// frequency matters to ranking).
func Analyze(text string) []string { return analyzer{}.analyze(text) }

// analyzer is the analysis with parts switched off (for the eval's ablation);
// the zero value is the real one. lex, when set, replaces the compiled
// vocabulary (while lexicon.txt itself is being compiled).
type analyzer struct {
	noStem, noSplit, noPhrase bool
	lex                       *lexicon
}

func (a analyzer) lexicon() *lexicon {
	if a.lex != nil {
		return a.lex
	}
	return loadLexicon()
}

func (a analyzer) analyze(text string) []string { return a.terms(text, false) }

// terms analyzes text (a query when query is set) and replaces the thesaurus
// phrases it contains ("log in", "sign off", "time zone") by their joined
// word (login, signoff, timezone), so that the phrase, not its loose words,
// is matched and expanded. Phrases are recognized on consecutive plain words,
// stopwords included, compared by their stems ("signed off" is "sign off").
func (a analyzer) terms(text string, query bool) []string {
	var out []string
	type word struct {
		stem  string
		start int // len(out) before the word's terms
	}
	var window []word // the last plain words, at most maxPhraseWords-1
	var lx *lexicon
	if !a.noPhrase {
		lx = a.lexicon()
	}
	eachChunk(text, func(chunk string) {
		start := len(out)
		out = a.appendChunkTerms(out, chunk, query)
		if query && !a.noPhrase {
			if t, ok := askedFor(strings.ToLower(chunk)); ok {
				out = append(out, t)
			}
		}
		if lx == nil {
			return
		}
		if !isLetters(chunk) {
			window = window[:0]
			return
		}
		var w word
		if len(out) == start+1 && !a.noStem && !hasCamel(chunk) {
			// a plain word's one term is its stem: no second stemming
			w = word{out[start], start}
		} else {
			w = word{phraseWord(strings.ToLower(chunk)), start}
		}
		// longest phrase first
		for k := 0; k < len(window) && lx.endsPhrase(w.stem); k++ {
			key := ""
			for _, x := range window[k:] {
				key += x.stem + " "
			}
			if tok, ok := lx.phrase(key + w.stem); ok {
				out = append(out[:window[k].start], tok)
				window = window[:0]
				return
			}
		}
		window = append(window, w)
		if len(window) >= maxPhraseWords {
			window = window[1:]
		}
	})
	return out
}

// QueryTerms returns the distinct terms of a free-text query, at most
// MaxQueryTerms. When there are more, exact identifiers and paths, numbers
// and long words are kept first; ties keep the order of the text. The input
// is never interpreted as query syntax.
func QueryTerms(query string) []string { return analyzer{}.queryTerms(query) }

func (a analyzer) queryTerms(query string) []string {
	if len(query) > maxAnalyzeBytes {
		query = query[:maxAnalyzeBytes]
	}
	seen := map[string]bool{}
	var terms []string
	for _, t := range a.terms(query, true) {
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	if len(terms) <= MaxQueryTerms {
		return terms
	}
	type ranked struct {
		term string
		pos  int
		rank int
	}
	rs := make([]ranked, len(terms))
	for i, t := range terms {
		r := 0
		switch {
		case strings.ContainsAny(t, "_-./\\@#$"):
			r = 3
		case isDigits(t):
			r = 2
		case utf8.RuneCountInString(t) >= 6:
			r = 1
		}
		rs[i] = ranked{t, i, r}
	}
	// stable selection: highest rank first, then earliest position
	keep := make([]bool, len(rs))
	n := 0
	for r := 3; r >= 0 && n < MaxQueryTerms; r-- {
		for i := range rs {
			if rs[i].rank == r && n < MaxQueryTerms {
				keep[i] = true
				n++
			}
		}
	}
	out := make([]string, 0, MaxQueryTerms)
	for i, t := range terms {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

func isChunkRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || isSep(r)
}

func isSep(r rune) bool {
	switch r {
	case '_', '-', '.', '/', '\\', '@', '#', '$':
		return true
	}
	return false
}

// eachChunk calls fn with every chunk of text (see the package comment).
func eachChunk(text string, fn func(string)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		c := strings.TrimFunc(text[start:end], isSep)
		start = -1
		if c != "" && len(c) <= maxChunkBytes {
			fn(c)
		}
	}
	for i, r := range text {
		if r == utf8.RuneError || !isChunkRune(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(text))
}

// appendChunkTerms appends the terms of one chunk.
func (a analyzer) appendChunkTerms(out []string, chunk string, query bool) []string {
	var parts []string
	if a.noSplit {
		parts = []string{chunk}
	} else {
		parts = splitParts(chunk)
	}
	if len(parts) > 1 {
		out = append(out, strings.ToLower(chunk))
		if base := pathBase(chunk); base != "" {
			out = append(out, strings.ToLower(base))
		}
		if tok, ok := a.hyphenPhrase(parts); ok {
			// "sign-off" is the phrase "sign off": signoff, not sign
			return append(out, tok)
		}
	}
	for _, p := range parts {
		if t, ok := a.normalizePart(p, query); ok {
			out = append(out, t)
		}
	}
	return out
}

// pathBase is the file name of a path of several elements when it is an
// identifier of its own (blueprints.py, user_service.go), else "": people
// name a file by its name as often as by its path, and either should find
// a memory that names the other.
func pathBase(chunk string) string {
	i := strings.LastIndexAny(chunk, "/\\")
	if i < 0 {
		return ""
	}
	base := chunk[i+1:]
	if len(splitParts(base)) < 2 {
		return ""
	}
	return base
}

// hyphenPhrase returns the thesaurus phrase a chunk of several plain words
// spells ("sign-off", "end-to-end", "add-on"), if any.
func (a analyzer) hyphenPhrase(parts []string) (string, bool) {
	if a.noPhrase || len(parts) > maxPhraseWords {
		return "", false
	}
	words := make([]string, len(parts))
	for i, p := range parts {
		if !isLetters(p) {
			return "", false
		}
		words[i] = phraseWord(strings.ToLower(p))
	}
	return a.lexicon().phrase(strings.Join(words, " "))
}

// splitParts splits a chunk at separators and camelCase boundaries.
func splitParts(chunk string) []string {
	var parts []string
	rs := []rune(chunk)
	start := 0
	emit := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if isSep(r) {
			emit(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(r):
			// requireAdmin: require|Admin
			emit(i)
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) && i-start >= 2:
			// HTTPServer: HTTP|Server (but OAuth stays whole)
			emit(i)
		}
	}
	emit(len(rs))
	return parts
}

// normalizePart lower-cases, filters and stems one part.
func (a analyzer) normalizePart(p string, query bool) (string, bool) {
	p = strings.ToLower(p)
	if isDigits(p) {
		return p, true
	}
	if utf8.RuneCountInString(p) < 2 || stopwords.has(p) {
		return "", false
	}
	if query && fillers.has(p) {
		return "", false
	}
	if isLetters(p) && !a.noStem {
		p = stem(p)
	}
	return p, p != ""
}

// phraseWord is how a word of a thesaurus phrase is compared: stopwords as
// they are, other words by their stem (the term a plain word yields).
func phraseWord(lower string) string {
	if utf8.RuneCountInString(lower) < 2 || stopwords.has(lower) {
		return lower
	}
	return stem(lower)
}

// hasCamel reports whether a letters-only chunk splits into several parts.
func hasCamel(chunk string) bool { return len(splitParts(chunk)) > 1 }

func stem(w string) string {
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// wordList is a sorted list of words, searched by halves. Unlike a map,
// the compiler lays it out: a process does not build it when it starts,
// which every hook would pay.
type wordList []string

// has reports whether w is in the list.
func (l wordList) has(w string) bool {
	_, ok := slices.BinarySearch(l, w)
	return ok
}

// stopwords are dropped everywhere: English function words, and the pieces
// contractions leave once the apostrophe splits them (doesn't: doesn, t).
var stopwords = wordList{
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
	"are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
	"but", "by", "can", "cannot", "could", "couldn", "did", "didn", "do", "does", "doesn", "doing",
	"don", "down", "during", "each", "eg", "etc", "few", "for", "from", "further", "had", "hadn",
	"has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him",
	"himself", "his", "how", "i", "ie", "if", "in", "into", "is", "isn", "it", "its", "itself",
	"just", "let", "lets", "ll", "me", "more", "most", "mustn", "my", "myself", "no", "nor", "not",
	"of", "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out",
	"over", "own", "re", "same", "shan", "she", "should", "shouldn", "so", "some", "such", "than",
	"that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
	"those", "through", "to", "too", "under", "until", "up", "us", "ve", "very", "via", "vs", "was",
	"wasn", "we", "were", "weren", "what", "when", "where", "which", "while", "who", "whom", "why",
	"will", "with", "won", "would", "wouldn", "you", "your", "yours", "yourself", "yourselves",
}

// askedFor maps question words that name what is asked for to a query
// term: "who" asks for a person responsible, which memories state as
// ownership (owns, maintainer, contact: the owner group of the thesaurus).
func askedFor(word string) (term string, ok bool) {
	switch word {
	case "who", "whom", "whose":
		return "owner", true
	}
	return "", false
}

// fillers are dropped from queries only: the words of asking, not of the
// thing asked about ("how do we use X", "what do I need to know about Y"),
// and contractions typed without their apostrophe ("whats", "dont").
var fillers = wordList{
	"able", "across", "actually", "again", "allow", "allows", "along", "already", "although",
	"always", "among", "amongst", "anyone", "anything", "anyway", "anyways", "arent", "around",
	"away", "beside", "besides", "bit", "both", "came", "cant", "come", "comes", "correct", "couldnt",
	"couple", "current", "currently", "didnt", "doesnt", "dont", "either", "else", "elsewhere",
	"even", "ever", "every", "everything", "exactly", "few", "fewer", "get", "gets", "getting",
	"goes", "going", "gone", "got", "gotten", "happen", "happened", "happens", "hello", "help",
	"heres", "hey", "hi", "however", "hows", "instead", "isnt", "ive", "just", "kind", "know",
	"least", "less", "let", "lets", "like", "likely", "look", "looking", "looks", "lot", "lots",
	"many", "maybe", "much", "need", "needed", "needs", "neither", "never", "now", "often", "ok",
	"okay", "one", "ones", "onto", "otherwise", "per", "perhaps", "please", "plenty", "probably",
	"quite", "rather", "really", "recall", "remember", "remind", "reminder", "right", "said", "saw",
	"say", "says", "see", "seem", "seemed", "seems", "seen", "sees", "several", "shouldnt", "someone",
	"something", "sometimes", "sort", "still", "stuff", "supposed", "sure", "tell", "thank", "thanks",
	"thats", "theres", "theyre", "thing", "things", "though", "three", "today", "toward", "towards",
	"two", "upon", "use", "used", "uses", "using", "usually", "various", "versus", "want", "wanted",
	"wants", "wasnt", "way", "ways", "went", "werent", "weve", "whats", "whens", "wheres", "whether",
	"whole", "whos", "whys", "within", "wont", "work", "worked", "working", "works", "wouldnt", "yet",
	"youre",
}
