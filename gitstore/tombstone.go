package gitstore

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// Purge tombstones (docs/architecture.md, sharing). A purge records
// purged/<id> in the root tree of refs/memory/main: a small blob holding the
// id only, never the text. It travels with the ref, and merges keep the union
// of both sides' tombstones. A pull honours every tombstone it sees, from
// either side or from git config mem.purged:
//
//   - a memory a teammate purged is purged here too (every memory ref's
//     history is rewritten, as git mem forget --purge does);
//   - the fetched history is rewritten without the purged memories before it
//     is merged, so the merge never takes a commit that still holds one as a
//     parent, and the tracking ref points at the rewritten history;
//   - the push that follows replaces the remote's history with the rewritten
//     one, with a lease on what was fetched, so it is gone there too.
//
// The rewrite is deterministic (authors, times and messages kept), so two
// clones rewriting the same fetched history make the same commits.

// purgedDir is the root tree entry that holds the tombstones.
const purgedDir = "purged"

// trailerPurged names the memory a tombstone commit records as purged.
const trailerPurged = "Memory-Purged"

// tombstoneDoc is the blob of purged/<id>.
func tombstoneDoc(id string) []byte { return []byte(`{"id":"` + id + `"}` + "\n") }

func (r *Repo) tombstones(commit Hash) (map[string]bool, error) {
	out := map[string]bool{}
	if commit.IsZero() {
		return out, nil
	}
	c, err := r.readCommit(commit)
	if err != nil {
		return nil, err
	}
	root, err := r.readTree(Hash(c.TreeHash))
	if err != nil {
		return nil, err
	}
	e := findEntry(root, purgedDir)
	if e == nil || e.Mode != gitobj.ModeDir {
		return out, nil
	}
	t, err := r.readTree(Hash(e.Hash))
	if err != nil {
		return nil, err
	}
	for _, te := range t.Entries {
		if ValidID(te.Name) {
			out[te.Name] = true
		}
	}
	return out, nil
}

// withTombstones returns the root tree root with purged/<id> for every id
// (those already there kept).
func (r *Repo) withTombstones(root Hash, ids map[string]bool) (Hash, error) {
	var entries []treeEntry
	if !root.IsZero() {
		t, err := r.readTree(root)
		if err != nil {
			return zeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	var stones []treeEntry
	have := map[string]bool{}
	if e := findEntryIn(entries, purgedDir); e != nil && e.Mode == gitobj.ModeDir {
		t, err := r.readTree(Hash(e.Hash))
		if err != nil {
			return zeroHash, err
		}
		for _, te := range t.Entries {
			stones = append(stones, te)
			have[te.Name] = true
		}
	}
	added := false
	for id := range ids {
		if have[id] || !ValidID(id) {
			continue
		}
		h, err := r.writeBlob(tombstoneDoc(id))
		if err != nil {
			return zeroHash, err
		}
		stones = append(stones, treeEntry{Name: id, Mode: gitobj.ModeRegular, Hash: h})
		added = true
	}
	if !added && !root.IsZero() {
		return root, nil
	}
	th, err := r.writeTree(stones)
	if err != nil {
		return zeroHash, err
	}
	return r.writeTree(setEntry(entries, purgedDir, gitobj.ModeDir, th))
}

func findEntryIn(entries []treeEntry, name string) *treeEntry {
	for i := range entries {
		if entries[i].Name == name {
			return &entries[i]
		}
	}
	return nil
}

// recordTombstone commits purged/<id> on refs/memory/main, once.
func (r *Repo) recordTombstone(ctx context.Context, id string) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		tip, err := r.refs.read(RefMain)
		if err != nil {
			return err
		}
		have, err := r.tombstones(tip)
		if err != nil {
			return err
		}
		if have[id] {
			return nil
		}
		root := zeroHash
		var parents []Hash
		if !tip.IsZero() {
			c, err := r.readCommit(tip)
			if err != nil {
				return err
			}
			root, parents = Hash(c.TreeHash), []Hash{tip}
		}
		tree, err := r.withTombstones(root, map[string]bool{id: true})
		if err != nil {
			return err
		}
		msg := "mem: " + opPurge + " " + Clip(id, MinShownPrefix) + " [purged]\n\n" +
			"The memory was purged: a pull removes it from every clone's history.\n\n" +
			trailerPurged + ": " + id + "\n" + trailerOp + ": " + opPurge + "\n"
		commit, err := r.writeCommit(tree, parents, msg, r.Now().UTC())
		if err != nil {
			return err
		}
		err = r.refs.update(RefMain, commit, tip)
		if !errors.Is(err, errRefMoved) {
			return err
		}
	}
	return &memerr.BusyError{Op: memerr.BusyPurge, Reason: "could not record the purge on " + RefMain}
}

// honourTombstones prepares a fetched tip for merging into refs/memory/main:
// the memories the fetched side has tombstones for and this repository still
// holds are purged here (returned as teammate), and the fetched history is
// rewritten without every memory either side, or git config mem.purged
// (extra), says was purged. It returns the tip to merge (fetched itself when
// nothing had to change).
func (r *Repo) honourTombstones(ctx context.Context, fetched Hash, extra []string) (theirs Hash, teammate []string, err error) {
	if fetched.IsZero() {
		return fetched, nil, nil
	}
	theirStones, err := r.tombstones(fetched)
	if err != nil {
		return fetched, nil, err
	}
	ours, err := r.refs.read(RefMain)
	if err != nil {
		return fetched, nil, err
	}
	ourStones, err := r.tombstones(ours)
	if err != nil {
		return fetched, nil, err
	}
	// the caches hold the text of what the purges below remove: the marker
	// is down before history changes, and stays until they are rebuilt
	var news []string
	for _, id := range sortedSet(theirStones) {
		if !ourStones[id] {
			news = append(news, id)
		}
	}
	if len(news) > 0 {
		// ids a stopped pull left are the caller's to scrub still
		leftover := r.ScrubPending()
		if err := r.markScrub(append(leftover, news...)); err != nil {
			return fetched, nil, err
		}
		defer func() {
			if len(teammate) == 0 && len(leftover) == 0 {
				_ = os.Remove(r.Mem().ScrubMarker()) // nothing removed: nothing to scrub
			}
		}()
	}
	for _, id := range news {
		rep, err := r.purgeRefs(ctx, id, map[string]bool{})
		if errors.Is(err, memerr.ErrNotFound) {
			continue // never had it
		}
		if err != nil {
			return fetched, nil, err
		}
		if len(rep.Refs) > 0 {
			teammate = append(teammate, id)
		}
	}
	all := map[string]bool{}
	for _, set := range []map[string]bool{theirStones, ourStones} {
		for id := range set {
			all[id] = true
		}
	}
	for _, id := range extra {
		if ValidID(id) {
			all[id] = true
		}
	}
	if len(all) == 0 {
		return fetched, teammate, nil
	}
	if ours, err = r.refs.read(RefMain); err != nil { // the purges above moved it
		return fetched, nil, err
	}
	p := newPurger(r, sortedSet(all), nil)
	// commits ours already has were purged when the purge was made or
	// learned: only what the fetch brought is rewritten
	if err := r.seedKnown(ctx, p, fetched, ours); err != nil {
		return fetched, nil, err
	}
	theirs, err = p.rewrite(ctx, fetched)
	return theirs, teammate, err
}

// seedKnown marks the commits reachable from ours as already clean, so the
// purger stops where the fetched history joins this repository's.
func (r *Repo) seedKnown(ctx context.Context, p *purger, fetched, ours Hash) error {
	if ours.IsZero() {
		return nil
	}
	if r.GitDir != "" {
		out, err := r.runGit(ctx, TransportOptions{}, nil, "rev-list", "--boundary", fetched.String(), "^"+ours.String(), "--")
		if err == nil {
			if len(out) == 0 {
				p.mapped[fetched] = fetched // ours has all of it
			}
			for _, l := range strings.Fields(string(out)) {
				if b, ok := strings.CutPrefix(l, "-"); ok {
					if h, valid := parseHash(b); valid {
						p.mapped[h] = h
					}
				}
			}
			return nil
		}
	}
	return r.walk(ctx, ours, func(c *gitCommit) (bool, error) {
		p.mapped[Hash(c.Hash)] = Hash(c.Hash)
		return true, nil
	})
}

// markScrub writes the ScrubMarker naming ids, each once.
func (r *Repo) markScrub(ids []string) error {
	marker := r.Mem().ScrubMarker()
	if marker == "" {
		return nil
	}
	all := map[string]bool{}
	for _, id := range ids {
		all[id] = true
	}
	return lockfile.WriteAtomic(marker, []byte(strings.Join(sortedSet(all), "\n")+"\n"), 0o644)
}

// ScrubPending lists the ids of the ScrubMarker: memories a teammate purged
// whose text the caches may still hold (nil when there is no marker).
func (r *Repo) ScrubPending() []string {
	marker := r.Mem().ScrubMarker()
	if marker == "" {
		return nil
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		return nil
	}
	var ids []string
	for _, id := range strings.Fields(string(data)) {
		if ValidID(id) {
			ids = append(ids, id)
		}
	}
	return ids
}
