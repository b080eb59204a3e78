package gitstore

import (
	"context"
	"github.com/git-mem/git-mem/internal/gitobj"
)

// Diff lists the memories that differ between two commits of a store: ids
// added or changed in to, and ids removed from it. Fan-out trees with equal
// hashes are skipped, so the cost follows the size of the change, not of the
// store. Either commit may be zero (an empty store).
func (s *Store) Diff(from, to Hash) (changed, removed []string, err error) {
	a, err := s.Repo.snapshotAt(from)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.Repo.snapshotAt(to)
	if err != nil {
		return nil, nil, err
	}
	err = diffSnapshots(a, b, func(id string, _, is Hash) error {
		if is.IsZero() {
			removed = append(removed, id)
		} else {
			changed = append(changed, id)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return changed, removed, nil
}

// diffSnapshots calls fn, in id order, for every memory whose document differs
// between a and b (zero hash: absent on that side). Equal fan-out trees are
// skipped without being read.
func diffSnapshots(a, b *snapshot, fn func(id string, ha, hb Hash) error) error {
	prefixes := map[string]bool{}
	for _, s := range []*snapshot{a, b} {
		if s.mems == nil {
			continue
		}
		for _, e := range s.mems.Entries {
			if e.Mode == gitobj.ModeDir {
				prefixes[e.Name] = true
			}
		}
	}
	for _, p := range sortedSet(prefixes) {
		ea, eb := findEntry(a.mems, p), findEntry(b.mems, p)
		if ea != nil && eb != nil && ea.Hash == eb.Hash {
			continue
		}
		fa, err := a.fan(p)
		if err != nil {
			return err
		}
		fb, err := b.fan(p)
		if err != nil {
			return err
		}
		if err := eachFanChange(p, fa, fb, fn); err != nil {
			return err
		}
	}
	return nil
}

// eachFanChange calls fn with each memory whose document differs between
// the fan-out trees old and cur (either may be nil): its id and its
// document's blob in each, zero where it is absent, in id order. Trees keep
// their entries in git's order, so one walk of both lists finds them.
func eachFanChange(prefix string, old, cur *gitTree, fn func(id string, was, is Hash) error) error {
	var oe, ce []treeEntry
	if old != nil {
		oe = old.Entries
	}
	if cur != nil {
		ce = cur.Entries
	}
	for len(oe) > 0 || len(ce) > 0 {
		var name string
		var was, is Hash
		switch {
		case len(ce) == 0 || len(oe) > 0 && sortName(&oe[0]) < sortName(&ce[0]):
			name, was = oe[0].Name, documentBlob(&oe[0])
			oe = oe[1:]
		case len(oe) == 0 || sortName(&ce[0]) < sortName(&oe[0]):
			name, is = ce[0].Name, documentBlob(&ce[0])
			ce = ce[1:]
		default: // the same name in both
			name, was, is = ce[0].Name, documentBlob(&oe[0]), documentBlob(&ce[0])
			oe, ce = oe[1:], ce[1:]
		}
		if id, ok := docID(prefix, name); ok && was != is {
			if err := fn(id, was, is); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsAncestor reports whether commit a is reachable from commit b (a zero a is
// an ancestor of everything): whether the ref moved forward from a to b rather
// than being rewritten.
func (s *Store) IsAncestor(ctx context.Context, a, b Hash) (bool, error) {
	if a.IsZero() || a == b {
		return true, nil
	}
	found := false
	err := s.Repo.walk(ctx, b, func(c *gitCommit) (bool, error) {
		if Hash(c.Hash) == a {
			found = true
			return false, nil
		}
		// Commits are visited newest first: once past a's time, a is not reachable
		// unless clocks were skewed, so keep walking (correctness over speed).
		return true, nil
	})
	return found, err
}

// documentBlob is the blob of a fan-out tree's entry, zero for a
// directory (which holds no document, whatever its name).
func documentBlob(e *treeEntry) Hash {
	if e.Mode == gitobj.ModeDir {
		return zeroHash
	}
	return Hash(e.Hash)
}
