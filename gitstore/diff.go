package gitstore

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing/filemode"
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
	prefixes := map[string]bool{}
	for _, t := range []*gitTree{a.mems, b.mems} {
		if t == nil {
			continue
		}
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				prefixes[e.Name] = true
			}
		}
	}
	for p := range prefixes {
		ea, eb := findEntry(a.mems, p), findEntry(b.mems, p)
		if ea != nil && eb != nil && ea.Hash == eb.Hash {
			continue
		}
		old, err := fanEntries(a, p)
		if err != nil {
			return nil, nil, err
		}
		cur, err := fanEntries(b, p)
		if err != nil {
			return nil, nil, err
		}
		for id, h := range cur {
			if old[id] != h {
				changed = append(changed, id)
			}
		}
		for id := range old {
			if _, ok := cur[id]; !ok {
				removed = append(removed, id)
			}
		}
	}
	return changed, removed, nil
}

func fanEntries(s *snapshot, prefix string) (map[string]Hash, error) {
	out := map[string]Hash{}
	t, err := s.fan(prefix)
	if err != nil || t == nil {
		return out, err
	}
	for _, e := range t.Entries {
		if id, ok := docID(prefix, e.Name); ok {
			out[id] = Hash(e.Hash)
		}
	}
	return out, nil
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
