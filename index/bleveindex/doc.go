// Package bleveindex is the bleve-backed Engine of package index, and the
// only package that imports bleve. The MCP server's binary (git-mem-mcp)
// wires it in at start-up (index.UseEngine(bleveindex.Engine{})); git-mem and
// the hook binary do not, and so link none of bleve's packages, whose
// initialization alone costs several times a bare process start. Their
// rebuild (git mem reindex, the scrub after a purge) removes this index,
// which git-mem-mcp builds again when it next starts.
//
// # The index is a cache
//
// It lives at <git common dir>/mem/index/ (the personal store's directory
// outside any repository) and can always be deleted. A sidecar file there
// (git-mem-state.json) records the mapping version and the commit of each
// memory ref the index reflects, with the document and term counts BM25
// needs. Every open reads the ref tips and the sidecar first: when they
// agree, bleve is opened read-only. Otherwise the index is opened read-write
// and brought forward by diffing the memory trees between the recorded and
// the current commit (adds, revisions, forgets, merges); when the recorded
// commit is not an ancestor of the tip (history rewritten by a purge), the
// mapping version changed, or the index is missing or damaged, it is rebuilt
// in a fresh directory that is then swapped in.
//
// No process keeps the index open between operations: a bleve index open
// read-write in one process makes every other open wait (docs/architecture.md, caches). Opens
// use bolt_timeout; when the index stays busy (index.ErrBusy) or is broken,
// index.Recall answers from its snapshot or a scan instead, with the same
// ranking.
//
// Documents are the pre-analyzed terms of index.DocTerms (whitespace
// tokenizer only), the memory's canonical JSON (stored) and its term count
// (stored); the corpus reads bleve's postings, norms and document counts.
//
// bleve's own log lines (scorch warns through the standard library's
// logger) go to <git common dir>/mem/index.log, never to stderr.
package bleveindex
