// Package index owns recall: query building from free text, ranking, budget
// packing and staleness, over a corpus of pre-analyzed documents. It does
// not import bleve: the bleve index lives in index/bleveindex, an Engine
// that a binary wires in with UseEngine (git-mem does at start-up), so that
// the hook binary, which never does, links none of it.
//
// # Three corpora, one ranking
//
// Recall ranks against one of three corpora that hold the same documents
// (DocTerms of each memory, with bleve's quantized lengths) and give the
// same numbers, so the answer does not depend on which one answered:
//
//   - the engine's index (Source "index"), when one is wired in: brought up
//     to date with the ref tips first (see index/bleveindex);
//   - the recall snapshot (Source "snapshot", snapshot.go): one file beside
//     the index directory, <git common dir>/mem/recall.snapshot, read in
//     parts (only the dictionary blocks and postings of the query's terms and
//     the returned memories' JSON); used when there is no engine, or when
//     the engine's index is busy or broken. It records the tips it reflects;
//     a stale one is brought forward by tree diffs in plain Go, and a
//     missing, truncated, corrupt or other-version one is rebuilt, so it
//     never answers for another state of the stores. Writers refresh it
//     after a write (Remember, Refresh), so a hook usually finds it current;
//   - the scan (Source "scan"): every memory read and indexed in memory;
//     for reads as of a past time, stores without a directory, and when the
//     snapshot cannot be written or read.
//
// Explicit wiring rather than a driver-style registration in an init
// function: importing index/bleveindex for its side effect would be easy to
// lose or to add by accident, and the import graph of a binary alone would
// decide which index it uses. Rebuild (git mem reindex) rebuilds the
// engine's index and the snapshot; Remember (dedupe) recalls through the
// engine like any read.
//
// # Query building and ranking
//
// See analyze.go (analysis: splitting, stopwords, stemming, thesaurus
// phrases, at most MaxQueryTerms terms, never query syntax), thesaurus.txt
// (synonyms and phrases) and rank.go (normalized BM25 x trust x recency x
// boosts, one relevance floor, the two-words and specific-words rules).
// The analysis is done here, not by bleve: documents are indexed as
// pre-analyzed terms (whitespace tokenizer only), and scoring reads the
// corpus's postings (term frequency, field length) and document counts, so
// the index, the snapshot and the scan compute the very same numbers. Terms are scored
// rarest first; once the remaining terms cannot lift a new document over the
// floor, only the documents already found are looked up (MaxScore pruning).
// Injectable tells a prompt hook whether a prompt has enough terms to
// inject anything.
//
// # Eval results
//
// Recall@3 on fixtures/eval (tune / holdout split; off-topic: share
// rejected). The holdout split was read once, after the changes were chosen
// on the tune split.
//
//	kind        before          after
//	developer   1.00 / 1.00     1.00 / 1.00
//	paraphrase  0.55 / 0.40     0.64 / 0.50
//	off-topic   0.92 / 1.00     1.00 / 1.00
//	superseded  0.86 / 1.00     0.86 / 1.00   (no superseded memory returned)
//
// What each change did, measured on the tune split (paraphrase, off-topic):
//
//   - thesaurus broadened from 156 to 244 groups of general software
//     vocabulary, written before looking at any miss: 0.55, 0.92 (no change
//     alone; with the final ranking the old thesaurus scores 0.55, 1.00).
//   - thesaurus phrases ("log in", "time zone", "pull request" analyzed as
//     one word), and "who" questions asking for the owner group: 0.64 (phrases
//     +1 query once "timed out" and "time out" shared one word; "who" +1).
//   - the specific-words rule (see rank.go): off-topic 0.92 → 1.00, no recall
//     lost. It rejects "enable dark mode in VS Code", which matched a
//     feature-flag convention on "enabled" (three times) and "code" only.
//   - small-store rule: no effect on the 80-memory eval; tested on a store of
//     four (TestSmallStoreUnknownWordsDoNotDominate).
//   - tried and left out: a cap on an unknown word's weight relative to the
//     query's known words (1.25× changes nothing here, 1.0× lets an off-topic
//     question through; in a tiny store the two-words rule, not the weight,
//     was what answered nothing); synonym weight 0.7-0.8 and other floors
//     (one more paraphrase at best, each next to a setting that lets an
//     off-topic question through).
//
// Ablation (all splits, `git mem eval --ablation`):
//
//	variant                                developer  paraphrase offtopic   superseded
//	full                                   1.00       0.59       1.00       0.90
//	no stemming                            1.00       0.28       1.00       0.70
//	no identifier/path splitting           0.97       0.34       0.94       1.00
//	no thesaurus                           1.00       0.25       1.00       0.80
//	no phrases or question words           1.00       0.50       1.00       0.90
//	no trust/recency re-ranking            1.00       0.59       1.00       0.90
//	no relevance floor                     1.00       0.78       0.22       0.60
//	none of stem, split, thesaurus, rerank 0.94       0.06       1.00       0.80
//
// Paraphrase recall stays under the 0.80 target: most remaining misses share
// no word and no general synonym with their memory ("grant access to
// credentials" for "handles access requests"), which a lexical ranking with
// an honest thesaurus cannot bridge.
//
// # Output
//
// pack.go packs results into a token budget (CharsPerToken characters per
// token) under a character cap; stale.go marks returned memories whose files
// changed since they were written. eval.go runs the labelled recall dataset
// of fixtures/eval.
package index
