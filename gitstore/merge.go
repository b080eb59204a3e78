package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
)

// Merging memory (docs/architecture.md, sharing) is per memory document, three-way against the
// merge base, and deterministic: the merged tree depends only on the two
// trees and their merge bases, never on which side is "ours", on the machine
// or on the clock.
//
//   - A memory on one side only: added there, kept. If the base had it, the
//     other side forgot it: it stays forgotten when this side left it as in
//     the base, and is kept when this side changed it since (the merge says so).
//   - A memory changed on one side only: that side's version.
//   - A memory changed on both sides: one document that unites the trust
//     events (deduplicated by op, time and agent, in time order) and the
//     reinforcement dates (one a day, the last 10), and keeps the text, type,
//     tags and paths of the version updated last (equal times: the version
//     whose canonical JSON sorts last). A valid_to closed on either side stays
//     closed (the earlier one when both are), with its superseded_by; the
//     creation fields (author, agent, session, created) are never replaced.
//     Both versions stay in history: the merge commit has both parents.
//
// The merge commit's parents are ours then theirs; its time is the later of
// the two tips' commit times, so the same merge made twice by the same
// identity is the same commit.

// MergeKind says what a merge did to the ref.
type MergeKind string

// Merge kinds.
const (
	MergeUpToDate    MergeKind = "up-to-date"    // theirs was already contained in ours
	MergeFastForward MergeKind = "fast-forward"  // ours moved to theirs
	mergeCommitted   MergeKind = "merged"        // a merge commit with both parents
	MergeNothing     MergeKind = "nothing-to-do" // theirs is empty
)

// MergeResult says what a merge did, memory by memory.
type MergeResult struct {
	Kind MergeKind
	// ours and theirs are the two tips merged; Commit is the ref's new tip.
	ours, theirs, Commit Hash
	// bases are the merge bases (best common ancestors), sorted.
	bases []Hash
	// Ids of memories, sorted, by what the merge did with them:
	New       []string // only theirs had it (added there, or unchanged here and revised there... see Changed)
	Changed   []string // changed there only since the base: theirs taken
	Merged    []string // changed on both sides: events united, later text kept
	Removed   []string // forgotten there, unchanged here: forgotten
	Revived   []string // forgotten on one side, changed since the base on the other: kept
	Local     []string // added or changed here only: kept as they are
	Forgotten []string // forgotten here, unchanged there: stays forgotten
	dropped   []string // purged here (mergeOptions.Drop), still there: left out
	// Rejected are the documents theirs brought that are invalid (see
	// validateDocument): not merged; ours keeps its version, if any.
	Rejected []*DocumentError
}

// incoming is the number of memories the merge brought or changed in ours.
func (m *MergeResult) incoming() int {
	return len(m.New) + len(m.Changed) + len(m.Merged) + len(m.Removed) + len(m.Revived)
}

// Summary is one line saying what merged, for commit messages and the CLI.
func (m *MergeResult) Summary(from string) string {
	if m.Kind == MergeFastForward && len(m.Rejected) == 0 {
		return fmt.Sprintf("fast-forward to %s: %s new, %d changed, %d forgotten by %s", m.Commit.Short(), plural(len(m.New), "memory", "memories"), len(m.Changed), len(m.Removed), from)
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(len(m.New), "new from "+from)
	add(len(m.Changed), "changed there")
	add(len(m.Merged), "changed on both sides (events united, later text kept)")
	add(len(m.Removed), "forgotten there")
	add(len(m.Revived), "kept although forgotten on one side (revised on the other)")
	add(len(m.Local)+len(m.Forgotten), "changed here only (kept)")
	add(len(m.dropped), "purged here and left out")
	add(len(m.Rejected), "invalid and not merged")
	if len(parts) == 0 {
		return "no memory differs"
	}
	return strings.Join(parts, ", ")
}

// mergeOptions describe a merge for its commit message.
type mergeOptions struct {
	// From names what is merged in, e.g. "origin" (default: the theirs commit).
	From string
	// TheirRef is the ref theirs was read from, e.g. refs/memory/remotes/origin/main.
	TheirRef string
	// Drop lists full ids that must not come back through the merge: memories
	// purged here (git config mem.purged) that the other side still has.
	Drop []string
}

// merge merges the commit theirs (usually a fetched remote memory) into the
// store's ref: nothing when ours already contains it, a fast-forward when ours
// is behind, else a merge commit (parents ours, theirs). The ref moves by
// compare-and-swap; when another writer moves it first, the merge is redone on
// the new tip.
func (s *Store) merge(ctx context.Context, w Writer, theirs Hash, opt mergeOptions) (*MergeResult, error) {
	if opt.From == "" {
		opt.From = theirs.Short()
	}
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if err := checkBudget(ctx); err != nil {
			return nil, err
		}
		ours, err := s.Tip()
		if err != nil {
			return nil, err
		}
		res, err := s.Repo.planMerge(ctx, ours, theirs, opt.Drop)
		if err != nil {
			return nil, err
		}
		switch res.Kind {
		case MergeUpToDate, MergeNothing:
			res.Commit = ours
			return res.MergeResult, nil
		case MergeFastForward:
			res.Commit = theirs
			err = s.Repo.refs.update(s.Ref, theirs, ours)
		default:
			if res.Commit, err = s.Repo.writeMerge(res, w, opt, s.Ref); err == nil {
				err = s.Repo.refs.update(s.Ref, res.Commit, ours)
			}
		}
		if err == nil {
			return res.MergeResult, nil
		}
		if !errors.Is(err, errRefMoved) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(rand.IntN(1000*(1+min(attempt, 20)))) * time.Microsecond)
	}
	return nil, fmt.Errorf("%w: gave up merging after %d attempts (%v); try again", memerr.ErrBusy, maxAttempts, lastErr)
}

// mergePlan is a MergeResult with the tree it leads to.
type mergePlan struct {
	*MergeResult
	tree Hash
	// theirsTime and oursTime are the tips' commit times.
	oursTime, theirsTime time.Time
	// keep: for a fast-forward, the documents of theirs that were rejected,
	// with the version ours has of them (zero: none).
	keep map[string]Hash
}

// planMerge decides the merge of theirs into ours and, for a real merge,
// writes the merged tree.
func (r *Repo) planMerge(ctx context.Context, ours, theirs Hash, drop []string) (*mergePlan, error) {
	p, err := r.planMergeTrees(ctx, ours, theirs)
	if err != nil || (len(drop) == 0 && len(p.keep) == 0) || (p.Kind != MergeFastForward && p.Kind != mergeCommitted) {
		return p, err
	}
	tree := p.tree
	if p.Kind == MergeFastForward {
		tc, err := r.readCommit(theirs)
		if err != nil {
			return nil, err
		}
		tree = Hash(tc.TreeHash)
	}
	snap, err := r.snapshotOfTree(tree)
	if err != nil {
		return nil, err
	}
	changes := map[string]Hash{}
	for id, h := range p.keep { // a fast-forward that brings invalid documents: keep ours instead
		changes[id] = h
	}
	for _, id := range drop {
		if !ValidID(id) {
			continue
		}
		if h, err := snap.blobHash(id); err != nil {
			return nil, err
		} else if !h.IsZero() {
			changes[id] = zeroHash
			p.dropped = append(p.dropped, id)
		}
	}
	if len(changes) == 0 {
		return p, nil
	}
	sort.Strings(p.dropped)
	p.New, p.Changed, p.Revived = without(p.New, changes), without(p.Changed, changes), without(p.Revived, changes)
	if p.tree, err = snap.buildTreeFromHashes(changes, nil); err != nil {
		return nil, err
	}
	if p.Kind == MergeFastForward { // theirs brings a purged memory back, or an invalid document: commit without it
		p.Kind = mergeCommitted
		if p.theirsTime, err = r.commitTime(theirs); err != nil {
			return nil, err
		}
		if !ours.IsZero() {
			if p.oursTime, err = r.commitTime(ours); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// checkIncoming reads a document theirs brings (memory id, blob h): nil
// when it is valid; a *DocumentError is recorded in res.Rejected and
// returned as rejected.
func (r *Repo) checkIncoming(res *MergeResult, id string, h Hash) (rejected bool, err error) {
	_, err = r.readMemory(h, id)
	var de *DocumentError
	if errors.As(err, &de) {
		res.Rejected = append(res.Rejected, de)
		return true, nil
	}
	return false, err
}

func (r *Repo) commitTime(h Hash) (time.Time, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When, nil
}

// snapshotOfTree reads a root tree that no commit points to yet.
func (r *Repo) snapshotOfTree(h Hash) (*snapshot, error) {
	s := &snapshot{repo: r, fans: map[string]*gitTree{}}
	var err error
	if s.root, err = r.readTree(h); err != nil {
		return nil, err
	}
	if e := findEntry(s.root, memoriesDir); e != nil {
		if s.mems, err = r.readTree(Hash(e.Hash)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func without(ids []string, drop map[string]Hash) []string {
	var out []string
	for _, id := range ids {
		if _, ok := drop[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

func (r *Repo) planMergeTrees(ctx context.Context, ours, theirs Hash) (*mergePlan, error) {
	res := &MergeResult{ours: ours, theirs: theirs}
	p := &mergePlan{MergeResult: res}
	switch {
	case theirs.IsZero():
		res.Kind = MergeNothing
		return p, nil
	case theirs == ours:
		res.Kind = MergeUpToDate
		return p, nil
	}
	if _, err := r.readCommit(theirs); err != nil {
		return nil, err
	}
	bases, err := r.mergeBases(ctx, ours, theirs)
	if err != nil {
		return nil, err
	}
	res.bases = bases
	if len(bases) == 1 && bases[0] == theirs {
		res.Kind = MergeUpToDate
		return p, nil
	}
	if ours.IsZero() || (len(bases) == 1 && bases[0] == ours) {
		res.Kind = MergeFastForward
		if p.keep, err = r.describeFastForward(res, ours, theirs); err != nil {
			return nil, err
		}
		return p, nil
	}
	res.Kind = mergeCommitted
	oc, err := r.readCommit(ours)
	if err != nil {
		return nil, err
	}
	tc, err := r.readCommit(theirs)
	if err != nil {
		return nil, err
	}
	p.oursTime, p.theirsTime = oc.Committer.When, tc.Committer.When
	if p.tree, err = r.mergeTrees(res, ours, theirs, bases); err != nil {
		return nil, err
	}
	// the merged tree keeps both sides' purge tombstones
	stones, err := r.tombstones(theirs)
	if err != nil {
		return nil, err
	}
	if len(stones) > 0 {
		if p.tree, err = r.withTombstones(p.tree, stones); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// describeFastForward fills in what a fast-forward brings, checking every
// document it brings: the invalid ones are rejected and returned with the
// version ours has of them (zero: none), which the merge keeps instead.
func (r *Repo) describeFastForward(res *MergeResult, ours, theirs Hash) (map[string]Hash, error) {
	o, err := r.snapshotAt(ours)
	if err != nil {
		return nil, err
	}
	t, err := r.snapshotAt(theirs)
	if err != nil {
		return nil, err
	}
	var keep map[string]Hash
	err = diffSnapshots(o, t, func(id string, ho, ht Hash) error {
		if !ht.IsZero() {
			rejected, err := r.checkIncoming(res, id, ht)
			if err != nil {
				return err
			}
			if rejected {
				if keep == nil {
					keep = map[string]Hash{}
				}
				keep[id] = ho
				return nil
			}
		}
		switch {
		case ho.IsZero():
			res.New = append(res.New, id)
		case ht.IsZero():
			res.Removed = append(res.Removed, id)
		default:
			res.Changed = append(res.Changed, id)
		}
		return nil
	})
	return keep, err
}

// mergeBases returns the best common ancestors of a and b, sorted by hash:
// common ancestors that are not ancestors of another common ancestor. None
// when the histories are unrelated. A zero a has none.
func (r *Repo) mergeBases(ctx context.Context, a, b Hash) ([]Hash, error) {
	if a.IsZero() || b.IsZero() {
		return nil, nil
	}
	if bases, ok := r.gitMergeBases(ctx, a, b); ok {
		return bases, nil
	}
	inA := map[Hash]bool{}
	if err := r.walk(ctx, a, func(c *gitCommit) (bool, error) { inA[Hash(c.Hash)] = true; return true, nil }); err != nil {
		return nil, err
	}
	// Walk b, stopping at commits a also reaches: those are the candidates.
	var cands []Hash
	seen := map[Hash]bool{b: true}
	queue := []Hash{b}
	shallow := r.shallowBoundary()
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := queue[0]
		queue = queue[1:]
		if inA[h] {
			cands = append(cands, h)
			continue
		}
		c, err := r.readCommit(h)
		if err != nil {
			return nil, err
		}
		for _, p := range parentsIn(c, shallow) {
			if !seen[Hash(p)] {
				seen[Hash(p)] = true
				queue = append(queue, Hash(p))
			}
		}
	}
	if len(cands) <= 1 {
		return cands, nil
	}
	// Drop candidates reachable from another candidate.
	redundant := map[Hash]bool{}
	for _, c := range cands {
		if redundant[c] {
			continue
		}
		cc, err := r.readCommit(c)
		if err != nil {
			return nil, err
		}
		for _, p := range cc.ParentHashes {
			if err := r.walk(ctx, Hash(p), func(x *gitCommit) (bool, error) {
				redundant[Hash(x.Hash)] = true
				return true, nil
			}); err != nil {
				return nil, err
			}
		}
	}
	var out []Hash
	for _, c := range cands {
		if !redundant[c] {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// gitMergeBases asks git merge-base --all, which is much faster than walking
// the history through go-git on a large store; ok is false when git cannot
// answer (in-memory repository, no git), and the caller walks itself.
func (r *Repo) gitMergeBases(ctx context.Context, a, b Hash) (bases []Hash, ok bool) {
	if r.GitDir == "" {
		return nil, false
	}
	out, err := r.runGit(ctx, TransportOptions{}, nil, "merge-base", "--all", a.String(), b.String())
	var ge *gitError
	if errors.As(err, &ge) && ge.exitCode() == 1 && len(out) == 0 {
		return nil, true // unrelated histories
	}
	if err != nil {
		return nil, false
	}
	for _, l := range strings.Fields(string(out)) {
		h, valid := parseHash(l)
		if !valid {
			return nil, false
		}
		bases = append(bases, h)
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i].String() < bases[j].String() })
	return bases, true
}

// mergeTrees builds the merged tree of ours and theirs and records in res what
// happened to each memory. Its result does not depend on which side is ours.
func (r *Repo) mergeTrees(res *MergeResult, ours, theirs Hash, bases []Hash) (Hash, error) {
	o, err := r.snapshotAt(ours)
	if err != nil {
		return zeroHash, err
	}
	t, err := r.snapshotAt(theirs)
	if err != nil {
		return zeroHash, err
	}
	var bs []*snapshot
	for _, b := range bases {
		s, err := r.snapshotAt(b)
		if err != nil {
			return zeroHash, err
		}
		bs = append(bs, s)
	}
	changes := map[string]Hash{}  // zero: delete
	rejected := map[string]bool{} // fan-out directories holding a rejected document
	take := func(id string, ht Hash) (bool, error) {
		bad, err := r.checkIncoming(res, id, ht)
		if bad {
			rejected[fanout(id)] = true
		}
		return !bad && err == nil, err
	}
	err = diffSnapshots(o, t, func(id string, ho, ht Hash) error {
		inBase := map[Hash]bool{}
		for _, b := range bs {
			h, err := b.blobHash(id)
			if err != nil {
				return err
			}
			if !h.IsZero() {
				inBase[h] = true
			}
		}
		switch {
		case ho.IsZero() && len(inBase) == 0: // added there
			if ok, err := take(id, ht); !ok {
				return err
			}
			res.New = append(res.New, id)
			changes[id] = ht
		case ht.IsZero() && len(inBase) == 0: // added here
			res.Local = append(res.Local, id)
		case ho.IsZero(): // forgotten here
			if inBase[ht] {
				res.Forgotten = append(res.Forgotten, id)
				return nil
			}
			if ok, err := take(id, ht); !ok {
				return err
			}
			res.Revived = append(res.Revived, id)
			changes[id] = ht
		case ht.IsZero(): // forgotten there
			if inBase[ho] {
				res.Removed = append(res.Removed, id)
				changes[id] = zeroHash
				return nil
			}
			res.Revived = append(res.Revived, id)
		case inBase[ho] && !inBase[ht]: // changed there only
			if ok, err := take(id, ht); !ok {
				return err
			}
			res.Changed = append(res.Changed, id)
			changes[id] = ht
		case inBase[ht] && !inBase[ho]: // changed here only
			res.Local = append(res.Local, id)
		default: // changed on both sides
			if ok, err := take(id, ht); !ok {
				if err == nil {
					res.Local = append(res.Local, id) // theirs is invalid: ours stays
				}
				return err
			}
			tm, err := r.readMemory(ht, id)
			if err != nil {
				return err
			}
			om, err := r.readMemory(ho, id)
			var de *DocumentError
			if errors.As(err, &de) { // ours is invalid, theirs valid: take theirs
				res.Changed = append(res.Changed, id)
				changes[id] = ht
				return nil
			}
			if err != nil {
				return err
			}
			var bm *Memory
			for _, b := range bs { // the first base (by hash) that has it
				if h, _ := b.blobHash(id); !h.IsZero() {
					if bm, err = r.readMemory(h, id); errors.As(err, &de) {
						bm = nil // an invalid base: merge as if there were none
					} else if err != nil {
						return err
					}
					break
				}
			}
			merged, err := mergeMemory(bm, om, tm)
			if err != nil {
				return err
			}
			data, err := merged.Encode()
			if err != nil {
				return err
			}
			res.Merged = append(res.Merged, id)
			if gitobj.NewObject(gitobj.BlobObject, data).Hash() != ho {
				if changes[id], err = r.writeBlob(data); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return zeroHash, err
	}
	if len(changes) == 0 {
		if o.root == nil {
			return r.writeTree(nil)
		}
		return Hash(o.root.Hash), nil
	}
	// With one merge base, a fan-out directory that ours left as in the base
	// becomes theirs as a whole: no need to rebuild it entry by entry.
	whole := map[string]Hash{}
	if len(bs) == 1 {
		for id := range changes {
			p := fanout(id)
			if _, done := whole[p]; !done && !rejected[p] && fanHash(o, p) == fanHash(bs[0], p) {
				whole[p] = fanHash(t, p)
			}
		}
		for id := range changes {
			if _, ok := whole[fanout(id)]; ok {
				delete(changes, id)
			}
		}
	}
	return o.buildTreeFromHashes(changes, whole)
}

// fanHash is the tree hash of a fan-out directory, zero when absent.
func fanHash(s *snapshot, prefix string) Hash {
	if e := findEntry(s.mems, prefix); e != nil {
		return Hash(e.Hash)
	}
	return zeroHash
}

// buildTreeFromHashes is buildTree for documents already in the object
// database (a merge takes them from the other side): it writes only trees.
// A zero hash deletes the document.
// whole replaces entire fan-out directories by tree hash (zero: remove).
func (s *snapshot) buildTreeFromHashes(changes map[string]Hash, whole map[string]Hash) (Hash, error) {
	byFan := map[string][]string{}
	for id := range changes {
		byFan[fanout(id)] = append(byFan[fanout(id)], id)
	}
	var memEntries []treeEntry
	if s.mems != nil {
		memEntries = append(memEntries, s.mems.Entries...)
	}
	for prefix, h := range whole {
		memEntries = setEntry(memEntries, prefix, gitobj.ModeDir, h)
	}
	for _, prefix := range sortedFans(byFan) {
		t, err := s.fan(prefix)
		if err != nil {
			return zeroHash, err
		}
		entries := map[string]treeEntry{}
		if t != nil {
			for _, e := range t.Entries {
				entries[e.Name] = e
			}
		}
		for _, id := range byFan[prefix] {
			if h := changes[id]; h.IsZero() {
				delete(entries, blobName(id))
			} else {
				entries[blobName(id)] = treeEntry{Name: blobName(id), Mode: gitobj.ModeRegular, Hash: h}
			}
		}
		list := make([]treeEntry, 0, len(entries))
		for _, e := range entries {
			list = append(list, e)
		}
		fh := zeroHash
		if len(list) > 0 {
			if fh, err = s.writeTree(list); err != nil {
				return zeroHash, err
			}
		}
		memEntries = setEntry(memEntries, prefix, gitobj.ModeDir, fh)
	}
	return s.writeRoot(memEntries)
}

func sortedFans(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mergeMemory merges two versions a and b of the same memory, both changed
// since base (nil when the merge base did not have it). It is commutative:
// mergeMemory(base, a, b) and mergeMemory(base, b, a) encode to the same bytes.
//
// The content (text, type, tags, paths, source, tentative, pinned) is taken
// three-way: from the side that changed it since base, else from the version
// updated last (equal times: the one whose canonical JSON sorts last), so a
// confirmation made later does not undo a revision made on the other side.
// Events and reinforcement dates are united; a closed valid time stays closed;
// the creation fields (author, agent, session, created, anchor, origin) are kept.
func mergeMemory(base, a, b *Memory) (*Memory, error) {
	if a.ID != b.ID || (base != nil && base.ID != a.ID) {
		return nil, fmt.Errorf("%w: cannot merge memory %s with %s", memerr.ErrInvalid, a.ID, b.ID)
	}
	ab, err := a.Encode()
	if err != nil {
		return nil, err
	}
	bb, err := b.Encode()
	if err != nil {
		return nil, err
	}
	win, lose := a, b
	if b.Updated.After(a.Updated) || (b.Updated.Equal(a.Updated) && bytes.Compare(bb, ab) > 0) {
		win, lose = b, a
	}
	m := *win
	content := win
	if base != nil {
		ka, kb, k0 := contentKey(a), contentKey(b), contentKey(base)
		switch {
		case ka == k0 && kb != k0:
			content = b
		case kb == k0 && ka != k0:
			content = a
		}
	}
	m.Text, m.Type, m.Source, m.Tentative, m.Pinned = content.Text, content.Type, content.Source, content.Tentative, content.Pinned
	m.Keys = append([]string(nil), content.Keys...)
	m.Tags = append([]string(nil), content.Tags...)
	m.Paths = append([]string(nil), content.Paths...)
	if lose.Created.Before(m.Created) {
		m.Created = lose.Created
	}
	m.Author = firstSet(win.Author, lose.Author)
	m.Agent = firstSet(win.Agent, lose.Agent)
	m.Session = firstSet(win.Session, lose.Session)
	m.Supersedes = firstSet(win.Supersedes, lose.Supersedes)
	if m.Anchor == nil && lose.Anchor != nil {
		an := *lose.Anchor
		m.Anchor = &an
	}
	if m.Origin == nil && lose.Origin != nil {
		o := *lose.Origin
		m.Origin = &o
	}
	// A closed valid time stays closed: the earlier end, with its replacement.
	m.ValidTo, m.SupersededBy = nil, ""
	for _, v := range []*Memory{a, b} {
		if v.ValidTo == nil {
			continue
		}
		end := v.ValidTo.UTC().Truncate(time.Second)
		if m.ValidTo == nil || end.Before(*m.ValidTo) ||
			(end.Equal(*m.ValidTo) && v.SupersededBy != "" && (m.SupersededBy == "" || v.SupersededBy < m.SupersededBy)) {
			m.ValidTo, m.SupersededBy = &end, v.SupersededBy
		}
	}
	if m.SupersededBy == "" {
		m.SupersededBy = minSet(a.SupersededBy, b.SupersededBy)
	}
	m.Events = mergeEvents(a.Events, b.Events)
	m.Reinforced = mergeReinforced(a.Reinforced, b.Reinforced)
	return &m, nil
}

// contentKey identifies what a memory says, as opposed to its standing.
func contentKey(m *Memory) string {
	return fmt.Sprintf("%q %q %q %q %q %q %v %v", m.Text, m.Keys, m.Type, m.Tags, m.Paths, m.Source, m.Tentative, m.Pinned)
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// minSet is the smaller non-empty string of a and b.
func minSet(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a < b:
		return a
	}
	return b
}

// mergeEvents unites two event lists: sorted by time, op, agent, author and
// reason, one event per (op, time to the second, agent).
func mergeEvents(a, b []Event) []Event {
	all := make([]Event, 0, len(a)+len(b))
	for _, e := range append(append([]Event(nil), a...), b...) {
		e.At = e.At.UTC().Truncate(time.Second)
		all = append(all, e)
	}
	sort.SliceStable(all, func(i, j int) bool {
		x, y := all[i], all[j]
		if !x.At.Equal(y.At) {
			return x.At.Before(y.At)
		}
		if x.Op != y.Op {
			return x.Op < y.Op
		}
		if x.Agent != y.Agent {
			return x.Agent < y.Agent
		}
		if x.Author != y.Author {
			return x.Author < y.Author
		}
		return x.Reason < y.Reason
	})
	var out []Event
	seen := map[string]bool{}
	for _, e := range all {
		k := e.Op + "\x00" + e.At.Format(time.RFC3339) + "\x00" + e.Agent
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// mergeReinforced unites two lists of reinforcement dates: sorted, the first
// of each UTC day, the last 10 days.
func mergeReinforced(a, b []time.Time) []time.Time {
	all := make([]time.Time, 0, len(a)+len(b))
	for _, t := range append(append([]time.Time(nil), a...), b...) {
		all = append(all, t.UTC().Truncate(time.Second))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Before(all[j]) })
	var out []time.Time
	for _, t := range all {
		if n := len(out); n > 0 && out[n-1].Format(time.DateOnly) == t.Format(time.DateOnly) {
			continue
		}
		out = append(out, t)
	}
	if len(out) > 10 {
		out = out[len(out)-10:]
	}
	return out
}

// writeMerge writes the merge commit of a plan: parents ours and theirs, a
// message that says what merged, trailers Memory-Op: merge and one Memory-Id
// per memory merged from both sides or kept against a forget.
func (r *Repo) writeMerge(p *mergePlan, w Writer, opt mergeOptions, into string) (Hash, error) {
	if err := w.Check(); err != nil {
		return zeroHash, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mem: merge %s: %s in\n\n", oneLine(opt.From), plural(p.incoming(), "memory", "memories"))
	fmt.Fprintf(&b, "Merged %s (%s) into %s (%s):\n", firstSet(opt.TheirRef, opt.From), p.theirs.Short(), into, p.ours.Short())
	b.WriteString(wrap(p.Summary(oneLine(opt.From))+".", 72) + "\n")
	if len(p.dropped) > 0 {
		b.WriteString("\nLeft out because they were purged here (git config mem.purged):\n")
		for _, id := range p.dropped {
			b.WriteString("  " + id + "\n")
		}
	}
	if len(p.Rejected) > 0 {
		b.WriteString("\nNot merged because they are invalid memory documents:\n")
		for _, d := range p.Rejected {
			b.WriteString("  " + d.ID + ": " + oneLine(d.Reason) + "\n")
		}
	}
	if len(p.Revived) > 0 {
		b.WriteString("\nKept although forgotten on one side, because the other side revised\nthem since the merge base:\n")
		for _, id := range p.Revived {
			b.WriteString("  " + id + "\n")
		}
	}
	b.WriteString("\n")
	ids := append(append([]string(nil), p.Merged...), p.Revived...)
	sort.Strings(ids)
	for _, id := range ids {
		b.WriteString(trailerID + ": " + id + "\n")
	}
	b.WriteString(trailerOp + ": " + opMerge + "\n")
	if w.Agent != "" {
		b.WriteString(trailerAgent + ": " + oneLine(w.Agent) + "\n")
	}
	if w.Session != "" {
		b.WriteString(trailerSession + ": " + oneLine(w.Session) + "\n")
	}
	when := p.oursTime
	if p.theirsTime.After(when) {
		when = p.theirsTime
	}
	parents := []Hash{p.ours, p.theirs}
	if p.ours.IsZero() {
		parents = parents[1:]
	}
	return r.writeCommit(p.tree, parents, b.String(), when)
}

// wrap breaks text into lines of at most width columns at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n")
			n = 0
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// plural renders "1 memory" or "3 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
