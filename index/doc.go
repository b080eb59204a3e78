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
// and glossary.txt (synonyms and phrases), concepts.txt (everyday
// descriptions pointing at terms), lexicon.go (those three compiled into
// lexicon.txt, so a process looks words up instead of analyzing thousands
// at start) and rank.go (normalized BM25 x trust x recency x boosts, one
// relevance floor, the two-words and specific-words rules).
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
// Recall@3 on fixtures/eval (off-topic: share rejected). The dataset has
// three parts: 93 queries written with the system (tune and holdout
// splits), 58 more tune queries and 66 fresh ones, both written blind by
// someone who read only the memories (fixtures/eval/README.md). Parameters
// were chosen on the tune split; the fresh split was read twice: after the
// thesaurus, weights and floor were chosen (0.25, 0.67), and again after
// the concept descriptions were added (unchanged).
//
//	part, kind              before   after
//	first 93, tune  para    0.64     0.64
//	first 93, hold  para    0.50     0.70
//	first 93, both  off     1.00     1.00
//	blind tune      para    0.25     0.42
//	blind tune      off     0.44     0.75
//	fresh           para    0.17     0.25
//	fresh           off     0.58     0.67
//	every part      dev     1.00     1.00   (45 queries)
//	every part      sup     no superseded memory returned as current
//
// The blind queries show what the first 93 hid: phrased without the
// memory's words, a paraphrase usually shares nothing with it but everyday
// words, and an off-topic question about a neighbouring subject ("resize
// the boat photos on upload", next to the photo-upload memory) shares its
// rarest words. What changed, on the tune split:
//
//   - glossary.txt (651 groups, written without sight of the queries) joined
//     the thesaurus, and six stem collisions were taken out of it
//     (responsible/response, localization/local, settings/set…).
//   - synonyms weigh 0.8 (was 0.6), but a synonym never counts more than
//     the word itself (its idf is capped at the word's): a rare synonym used
//     to outscore the exact word.
//   - a question of more than 8 groups is measured against 8 groups' worth:
//     a memory answers one part of a long prompt.
//   - concepts.txt (608 lines, written without sight of the queries) maps
//     everyday descriptions to the terms notes use ("hide unfinished" →
//     feature flag, "flattened history" → squash): a query's consecutive
//     terms that spell a description add its concepts to their groups at
//     ConceptWeight 0.7, one way only (a memory that says "switch" does not
//     match a question about feature flags). Tune paraphrase 0.41 → 0.50
//     (0.5 weight: 0.48); fresh unchanged.
//   - question fillers grew (many, get, around, instead…); a hyphenated
//     phrase ("sign-off") is the phrase.
//   - the floor moved from 0.28 to 0.37: at each setting the tune split
//     trades paraphrase recall against off-topic rejection, and 0.37 is where
//     their sum peaks (0.41 + 0.86; at 0.28, 0.53 + 0.61).
//   - tried and left out: familiar English words (the New Dale-Chall list)
//     weighing less when unknown; WordNet first-sense synonyms; a heavier
//     weight for unknown words; unknown words outside the thesaurus
//     weighing less. Each moved the trade-off by a query or two at most.
//
// Ablation (all splits, `git mem eval --ablation`):
//
//	variant                                developer  paraphrase offtopic   superseded
//	full                                   1.00       0.43       0.83       0.86
//	no stemming                            1.00       0.10       0.96       0.73
//	no identifier/path splitting           0.98       0.22       0.87       0.68
//	no thesaurus (nor concepts)            1.00       0.08       0.93       0.68
//	no concept descriptions                1.00       0.38       0.83       0.86
//	no phrases or question words           1.00       0.33       0.85       0.86
//	no trust/recency re-ranking            1.00       0.43       0.83       0.86
//	no relevance floor                     1.00       0.76       0.09       0.73
//	none of stem, split, thesaurus, rerank 0.96       0.03       0.98       0.55
//
// Paraphrase recall is far under the 0.80 target. Without the floor the
// right memory is in the top three for 0.76 of the paraphrases: ranking
// mostly finds it, and what fails is telling a weak right answer from an
// off-topic near miss, which a lexical score cannot do reliably.
//
// # Output
//
// pack.go packs results into a token budget (CharsPerToken characters per
// token) under a character cap; stale.go marks returned memories whose files
// changed since they were written. eval.go runs the labelled recall dataset
// of fixtures/eval.
package index
