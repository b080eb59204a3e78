package index

import (
	"runtime"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
)

// A long-lived process that writes (the MCP server) keeps the view of the
// recall snapshot its last write brought forward, for its next write.
// Opening a view reads the snapshot's table of contents and the whole
// delta, which at 100,000 memories grows to about 250 KB before a fold,
// and every lookup of the write's terms reads its dictionary block again.
// A kept view only checks that no other process changed the files since it
// read them (snapView.unchanged); when one did, the view is closed and the
// files read afresh.

// keptView is the one view kept, of the snapshot at path.
var keptView struct {
	mu   sync.Mutex
	path string
	v    *snapView
}

// takeKeptView returns the view kept of the snapshot at path when acc
// keeps views and the files are still what it read, and nil otherwise.
// The view is the caller's from then on: a concurrent write opens its own.
func takeKeptView(acc Access, path string) *snapView {
	if !acc.KeepViews {
		return nil
	}
	v := takeKept(path)
	if v != nil && !v.unchanged(path) {
		v.close()
		return nil
	}
	return v
}

// takeKept takes the view kept of the snapshot at path out of keeping.
func takeKept(path string) *snapView {
	keptView.mu.Lock()
	defer keptView.mu.Unlock()
	v := keptView.v
	if v == nil || keptView.path != path {
		return nil
	}
	keptView.v = nil
	return v
}

// dropKeptView closes the view kept of the snapshot at path, if any, when
// the snapshot is rebuilt or removed: after a purge the old file, which
// holds the purged memory's text, must not stay open in a server until
// its next write.
func dropKeptView(path string) {
	if v := takeKept(path); v != nil {
		v.close()
	}
}

// keepOrClose keeps v, an up-to-date view of the snapshot at path, for the
// next write with acc, or closes it. Only a view read from the file is
// kept (a new base just folded is held in memory, tens of megabytes at
// 100,000 memories), without the documents and the summaries one call
// loaded. On Windows none is: a file held open there cannot be replaced
// by another process's new snapshot.
func keepOrClose(acc Access, path string, v *snapView) {
	if !acc.KeepViews || v.base.Info() == nil || v.damaged || runtime.GOOS == "windows" {
		v.close()
		return
	}
	v.base.ForgetLoaded()
	v.base.DropSummaries()
	keptView.mu.Lock()
	old := keptView.v
	keptView.path, keptView.v = path, v
	keptView.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// DropStaleView closes the view of the set's recall snapshot this process
// keeps (Access.KeepViews) when the files no longer match it: another process
// wrote, or replaced the snapshot (a purge rebuilds it, and the old file
// holds the purged text). The MCP server calls it at every call, so that
// it does not wait for its next write to let the old file go.
func DropStaleView(set *gitstore.Set) {
	path := SnapshotPath(set)
	if path == "" {
		return
	}
	keptView.mu.Lock()
	v := keptView.v
	stale := v != nil && keptView.path == path && !v.unchanged(path)
	if stale {
		keptView.v = nil
	}
	keptView.mu.Unlock()
	if stale {
		v.close()
	}
}
