package index

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Access is how a process reads and writes the recall snapshot: chosen by
// each surface for what it is (a hook that exits within milliseconds, a
// server that stays, a command) and passed down, in Options.Access or as
// the receiver of its methods, to every call that reads or writes the
// snapshot; nothing else (no context value, no process switch) changes how
// it is read or written. The zero value is a command's: read
// into memory, fold when due, keep nothing.
type Access struct {
	// Map reads the snapshot's dictionary and postings through a memory
	// map: a process that exits once it has answered (a hook, git mem
	// add) reads a common word's postings, hundreds of kilobytes at
	// 100,000 memories, without copying them. A fault reading the map
	// (the file truncated under it) is an error, never a crash.
	Map bool
	// DeferFolds appends snapshot writes to the delta rather than fold it
	// (up to deferredFoldAt): a fold at 100,000 memories takes longer than
	// a hook may. FoldDue then tells the hook to
	// leave the fold to a warm-up in the background, whose Refresh folds.
	DeferFolds bool
	// KeepViews keeps the view of the snapshot a write brings forward, or a
	// recall reads, open for the process's next write, recall or display
	// ids with KeepViews, instead of closing it (keptview.go): for a
	// long-lived writer, the MCP server, and for a hook, whose display ids
	// read the view its recall opened (at 100,000 memories, a delta of up
	// to about 250 KB read and applied once rather than twice).
	KeepViews bool
}

// Refresh is the package's Refresh with this access.
func (a Access) Refresh(ctx context.Context, set *gitstore.Set) error {
	return refreshFrom(ctx, set, nil, a)
}

// Remember saves a new memory in store, unless a current memory of the same
// type in that store is a near-duplicate (Similarity >= DuplicateSimilarity)
// making the same claim: then that memory is reinforced instead. An alike
// memory with a different claim is named in the outcome. An explicit
// replacement (n.Supersedes) is always saved. The memories compared are
// those of the type sharing the most of the text's words, counted in the
// recall snapshot (similarInSnapshot), never the engine; without a
// snapshot, the ten recall ranks first. The snapshot is refreshed after
// the write.
func (a Access) Remember(ctx context.Context, set *gitstore.Set, store *gitstore.Store, w gitstore.Writer, n gitstore.NewMemory) (*Outcome, error) {
	return remember(ctx, set, store, w, n, a)
}

// OpenCatalog opens the set's recall snapshot, brought up to date first, to
// read its summaries. It fails when the set has no directory for one; the
// caller then reads the stores.
func (a Access) OpenCatalog(ctx context.Context, set *gitstore.Set) (*Catalog, error) {
	return openCatalog(ctx, set, a)
}

// Count counts the set's memories per store: from the recall snapshot's
// summaries when the set has a directory for one (no memory is decoded),
// otherwise from the stores.
func (a Access) Count(ctx context.Context, set *gitstore.Set, now time.Time) (map[gitstore.Scope]*Counts, error) {
	return count(ctx, set, now, a)
}
