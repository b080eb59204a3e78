// Package index owns recall: the bleve index of the memory stores, query
// building from free text, ranking, budget packing and staleness. It is the
// only package that imports bleve.
//
// # The index is a cache
//
// It lives at <git common dir>/mem/index/ (the personal store's directory
// outside any repository) and can always be deleted. A sidecar file there
// (git-mem-state.json) records the mapping version and the commit of each
// memory ref the index reflects, with the document and term counts BM25
// needs. Every recall reads the ref tips and the sidecar first: when they
// agree, bleve is opened read-only and queried. Otherwise the index is opened
// read-write and brought forward by diffing the memory trees between the
// recorded and the current commit (adds, revisions, forgets, merges); when the
// recorded commit is not an ancestor of the tip (history rewritten by a
// purge), the mapping version changed, or the index is missing or damaged, it
// is rebuilt in a fresh directory that is then swapped in.
//
// No process keeps the index open between operations: a bleve index open
// read-write in one process makes every other open wait (DESIGN §3). Opens
// use bolt_timeout; when the index stays busy or is broken, recall scans the
// stores and scores them in memory with the same analysis, statistics and
// ranking, so the answer is the same.
//
// # Query building and ranking
//
// See analyze.go (analysis: splitting, stopwords, stemming, at most
// MaxQueryTerms terms, never query syntax), thesaurus.txt (synonyms) and
// rank.go (normalized BM25 x trust x recency x boosts, one relevance floor).
// The analysis is done here, not by bleve: documents are indexed as
// pre-analyzed terms (whitespace tokenizer only), and scoring reads bleve's
// postings (term frequency, field length) and document counts, so the index
// and the fallback scan compute the very same numbers. Terms are scored
// rarest first; once the remaining terms cannot lift a new document over the
// floor, only the documents already found are looked up (MaxScore pruning).
// Injectable tells a prompt hook whether a prompt has enough terms to
// inject anything.
//
// # Output
//
// pack.go packs results into a token budget (CharsPerToken characters per
// token) under a character cap; stale.go marks returned memories whose files
// changed since they were written. eval.go runs the labelled recall dataset
// of fixtures/eval.
package index
