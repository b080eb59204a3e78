package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// MemDir is the layout of <git dir>/mem, git-mem's own files beside the
// repository's: every path git-mem keeps there is named here, and nowhere
// else (docs/architecture.md, "Caches" and "Sessions and injection limits").
// The caches are shared by every worktree (under the common git directory);
// session markers are per worktree (under its own git directory). Each path
// is "" for a repository that is not on disk.
type MemDir struct {
	common, private string
}

// Mem is the layout of the repository's <git dir>/mem.
func (r *Repo) Mem() MemDir {
	if r == nil {
		return MemDir{}
	}
	return MemDir{common: r.CommonDir, private: r.GitDir}
}

func (m MemDir) join(base string, parts ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base, "mem"}, parts...)...)
}

// Root is <git common dir>/mem.
func (m MemDir) Root() string { return m.join(m.common) }

// Index is the search index's directory, <git common dir>/mem/index (the
// engine holds <git common dir>/mem/index.lock beside it while it writes).
func (m MemDir) Index() string { return m.join(m.common, "index") }

// Snapshot is the recall snapshot, <git common dir>/mem/recall.snapshot:
// beside the index directory, so that a rebuild swapping that directory
// leaves it alone.
func (m MemDir) Snapshot() string { return m.join(m.common, "recall.snapshot") }

// SnapshotDelta is the recall snapshot's delta, the writes appended since
// the snapshot was written: its path with ".delta" added.
func (m MemDir) SnapshotDelta() string { return m.Snapshot() + ".delta" }

// indexLog receives the search engine's own log lines (bleve's),
// <git common dir>/mem/index.log: beside the index directory.
func (m MemDir) indexLog() string { return m.join(m.common, "index.log") }

// StartCache is session start's cache of standing memories,
// <git common dir>/mem/cache/start.json.
func (m MemDir) StartCache() string { return m.join(m.common, "cache", "start.json") }

// WarmLock is held by the background process that brings the caches
// forward after a hook, <git common dir>/mem/cache/warm.lock.
func (m MemDir) WarmLock() string { return m.join(m.common, "cache", "warm.lock") }

// Vectors is the embedding vector cache, <git common dir>/mem/vectors: one
// append-only file per embedding model and the endpoint's back-off state
// (package embedding; docs/architecture.md, "Embeddings").
func (m MemDir) Vectors() string { return m.join(m.common, "vectors") }

// PurgeMarker is the file a purge of the memory id keeps while it runs,
// <git common dir>/mem/purging/<id>: it names the id only, so that a purge
// killed after rewriting history is finished by running it again.
func (m MemDir) PurgeMarker(id string) string { return m.join(m.common, "purging", id) }

// ScrubMarker is the file a pull keeps from before it removes memories a
// teammate purged until the caches that held their text are rebuilt,
// <git common dir>/mem/purging/caches: it names the ids, so that a pull
// killed in between leaves the next request the scrub (package surface).
func (m MemDir) ScrubMarker() string { return m.join(m.common, "purging", "caches") }

// LinkScrubs records, per linked store's local copy, how many of its purges
// this repository's caches were scrubbed for (package linkstore).
func (m MemDir) LinkScrubs() string { return m.join(m.common, "cache", "link-purges") }

// HooksLog is where hooks write their errors, <git common dir>/mem/hooks.log.
func (m MemDir) HooksLog() string { return m.join(m.common, "hooks.log") }

// Sessions is the directory of this worktree's session markers,
// <git dir>/mem/sessions.
func (m MemDir) Sessions() string { return m.join(m.private, "sessions") }

// Git runs the git command in the repository's worktree, without taking
// optional locks (a hook must not block the user's own git), within
// gitTimeout, and returns its standard output.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	if r.WorkTree == "" {
		return nil, fmt.Errorf("%w: no worktree", ErrNoRepo)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.WorkTree}, args...)...)
	cmd.Env = r.gitEnv("GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
