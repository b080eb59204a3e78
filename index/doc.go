// Package index owns recall: query building from free text, ranking, budget
// packing and staleness, over a corpus of pre-analyzed documents. It does
// not import bleve: the bleve index lives in index/bleveindex, an Engine
// that a binary wires in with UseEngine (the MCP server's, git-mem-mcp, does
// at start-up), so that git-mem and the hook binary, which never do, link
// none of it.
//
// # Three corpora, one ranking
//
// Recall ranks against one of three corpora that hold the same documents
// (DocTerms of each memory, with bleve's quantized lengths) and give the
// same numbers, so the answer does not depend on which one answered:
//
//   - the engine's index (Source "index"), when one is wired in: brought up
//     to date with the ref tips first (see index/bleveindex);
//   - the recall snapshot (Source "snapshot", index/snapshot): one file beside
//     the index directory, <git common dir>/mem/recall.snapshot, read in
//     parts (only the dictionary blocks and postings of the query's terms and
//     the returned memories' JSON; the hooks map the dictionary and
//     postings, Access.Map); used when there is no engine, or when
//     the engine's index is busy or broken. It records the tips it reflects;
//     a stale one is brought forward by tree diffs in plain Go, and a
//     missing, truncated, corrupt or other-version one is rebuilt, so it
//     never answers for another state of the stores. Writers refresh it
//     after a write (Remember, Refresh), so a hook usually finds it current;
//     a refresh appends the change to a delta file beside it rather than
//     rewriting it, folding the two when the delta passes a size that
//     follows the square root of the snapshot's (snapdelta.go; never with
//     Access.DeferFolds, as hooks and the MCP server write); a long-lived
//     writer keeps its view of the snapshot between writes
//     (Access.KeepViews, keptview.go), and its summary table lets list and stats
//     count and order memories without decoding them (OpenCatalog);
//   - the scan (Source "scan"): every memory read and indexed in memory;
//     for reads as of a past time, stores without a directory, and when the
//     snapshot cannot be written or read.
//
// Explicit wiring rather than a driver-style registration in an init
// function: importing index/bleveindex for its side effect would be easy to
// lose or to add by accident, and the import graph of a binary alone would
// decide which index it uses. Rebuild (git mem reindex) rebuilds the
// engine's index and the snapshot. Remember's duplicate check reads the
// snapshot, never the engine (dupsearch.go): the write brings the snapshot
// forward anyway, while opening the engine's index after the previous
// write would sync it (a new segment, and a merge every few), a cost an MCP
// server paid at every memory_add and that grew with the store. The engine
// catches up at the next read that asks it, by one tree diff over all the
// writes since.
//
// # Query building and ranking
//
// See analyze.go (analysis: splitting, stopwords, stemming, thesaurus
// phrases, at most MaxQueryTerms terms, never query syntax), thesaurus.txt
// and glossary.txt (synonyms and phrases), concepts.txt (everyday
// descriptions pointing at terms), lexicon.go (those three compiled into
// lexicon.txt, so a process looks words up instead of analyzing thousands
// at start) and rank.go (normalized BM25 over the rarest known query
// groups, then trust x recency x boosts).
// The analysis is done here, not by bleve: documents are indexed as
// pre-analyzed terms (whitespace tokenizer only), and scoring reads the
// corpus's postings (term frequency, field length) and document counts, so
// the index, the snapshot and the scan compute the very same numbers. Terms
// are scored rarest first; a candidate matches one of the query's rarer
// half, and once the remaining terms cannot lift a new document over the
// candidate floor only the documents already found are looked up (MaxScore
// pruning). Injectable tells a prompt hook whether a prompt has enough
// terms to inject anything.
//
// # The decision to answer
//
// A candidate (a memory matching one of the query's rarer words, over the
// candidate floor) gets a confidence (confidence.go): a logistic model
// over evidence the candidate carries by itself (shares of the query's and
// of the memory's words matched, the rarity matched), never a comparison
// with the other candidates, so that it means the same on text written
// anywhere and a second good answer does not lower the first's. It is
// named by a label: strong, likely or weak (ConfidenceLabel). Explicit
// recall (git mem recall, MCP memory_recall, boot -- TASK) returns every
// candidate with its label; Injection (the prompt hook) only strong ones.
// The weights and thresholds are fitted on the tune parts of every source
// (the own eval projects, and the shared recall sets written elsewhere) by
// TestFitConfidence (confidence_weights.go is its output);
// fixtures/eval/README.md says how and what the evals measure (the eval
// harness is index/evaluation, its data index/evaluation/dataset).
//
// Several phrasings of one need (Options.Also) are recalled one by one
// and fused by reciprocal rank fusion (fuse.go).
//
// A superseded memory stands for the memory that replaced it (weigher):
// a question about the old fact is answered with the current one, never
// with the old one, unless the caller asked for history.
//
// # Output
//
// pack.go packs results into a token budget (CharsPerToken characters per
// token) under a character cap; stale.go marks returned memories whose files
// changed since they were written.
//
// # Tuning
//
// A Tuning (tuning.go) switches parts of analysis and ranking off, for the
// eval's ablations (Ablation) and the confidence's fit; a Scan ranks many
// queries against stores that do not change, as the eval does.
package index
