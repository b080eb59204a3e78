package memdir

import "path/filepath"

// Dir is the layout of <git dir>/mem, git-mem's own files beside the
// repository's: every path git-mem keeps there is named here, and nowhere
// else (docs/architecture.md, "Caches" and "Sessions and injection limits").
// The caches are shared by every worktree (under the common git directory);
// session markers are per worktree (under its own git directory). Each path
// is "" for a repository that is not on disk.
type Dir struct {
	common, private string
}

// New is the layout of <git dir>/mem for a repository whose common git
// directory is common and whose (worktree's) git directory is private.
func New(common, private string) Dir { return Dir{common: common, private: private} }

func (m Dir) join(base string, parts ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base, "mem"}, parts...)...)
}

// Root is <git common dir>/mem.
func (m Dir) Root() string { return m.join(m.common) }

// Index is the search index's directory, <git common dir>/mem/index (the
// engine holds <git common dir>/mem/index.lock beside it while it writes).
func (m Dir) Index() string { return m.join(m.common, "index") }

// Snapshot is the recall snapshot, <git common dir>/mem/recall.snapshot:
// beside the index directory, so that a rebuild swapping that directory
// leaves it alone.
func (m Dir) Snapshot() string { return m.join(m.common, "recall.snapshot") }

// SnapshotDelta is the recall snapshot's delta, the writes appended since
// the snapshot was written: its path with ".delta" added.
func (m Dir) SnapshotDelta() string { return m.Snapshot() + ".delta" }

// IndexLog receives the search engine's own log lines (bleve's),
// <git common dir>/mem/index.log: beside the index directory.
func (m Dir) IndexLog() string { return m.join(m.common, "index.log") }

// StartCache is session start's cache of standing memories,
// <git common dir>/mem/cache/start.json.
func (m Dir) StartCache() string { return m.join(m.common, "cache", "start.json") }

// WarmLock is held by the background process that brings the caches
// forward after a hook, <git common dir>/mem/cache/warm.lock.
func (m Dir) WarmLock() string { return m.join(m.common, "cache", "warm.lock") }

// Vectors is the embedding vector cache, <git common dir>/mem/vectors: one
// append-only file per embedding model and the endpoint's back-off state
// (package embedding; docs/architecture.md, "Embeddings").
func (m Dir) Vectors() string { return m.join(m.common, "vectors") }

// PurgeMarker is the file a purge of the memory id keeps while it runs,
// <git common dir>/mem/purging/<id>: it names the id only, so that a purge
// killed after rewriting history is finished by running it again.
func (m Dir) PurgeMarker(id string) string { return m.join(m.common, "purging", id) }

// ScrubMarker is the file a pull keeps from before it removes memories a
// teammate purged until the caches that held their text are rebuilt,
// <git common dir>/mem/purging/caches: it names the ids, so that a pull
// killed in between leaves the next request the scrub (package surface).
func (m Dir) ScrubMarker() string { return m.join(m.common, "purging", "caches") }

// LinkScrubs records, per linked store's local copy, how many of its purges
// this repository's caches were scrubbed for (package linkstore).
func (m Dir) LinkScrubs() string { return m.join(m.common, "cache", "link-purges") }

// HooksLog is where hooks write their errors, <git common dir>/mem/hooks.log.
func (m Dir) HooksLog() string { return m.join(m.common, "hooks.log") }

// Sessions is the directory of this worktree's session markers,
// <git dir>/mem/sessions.
func (m Dir) Sessions() string { return m.join(m.private, "sessions") }
