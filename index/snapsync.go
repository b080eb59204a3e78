package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// writeFileAtomic replaces path with data: a temp file in the same
// directory, then a rename, so a reader sees the old file or the new one.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), rand.Uint32())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// syncSnapshot returns the snapshot at path up to date with the stores'
// tips: as read when it is, else brought forward by diffing each changed
// store's tree from the recorded commit (or rebuilt from the stores when
// it is missing or unusable), written back, and returned.
func syncSnapshot(ctx context.Context, path string, stores []*gitstore.Store) (*snapshot, error) {
	tips, err := Tips(stores)
	if err != nil {
		return nil, err
	}
	old, err := openSnapshot(path)
	if err == nil && SameTips(old.tips, tips) {
		return old, nil
	}
	var docs map[string]*snapDoc
	if old != nil {
		// the whole file is read to bring it forward: once, not per read
		old.close()
		if data, err := os.ReadFile(path); err != nil {
			old = nil
		} else if old, err = readSnapshot(bytes.NewReader(data), int64(len(data))); err == nil {
			if docs, err = old.docsOf(); err != nil {
				old = nil
			}
		}
	}
	if old == nil {
		docs = map[string]*snapDoc{}
	}
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := StoreKey(s)
		oldTip, had := "", false
		if old != nil {
			oldTip, had = old.tips[k]
		}
		if had && oldTip == tips[k] {
			continue
		}
		if err := advanceStore(docs, s, oldTip, had, tips[k]); err != nil {
			return nil, err
		}
	}
	// stores the snapshot knew that this set no longer reads
	if old != nil {
		for k := range old.tips {
			if _, ok := tips[k]; !ok {
				scope, _, _ := strings.Cut(k, " ")
				dropScope(docs, gitstore.Scope(scope))
			}
		}
	}
	data := encodeSnapshot(tips, docs)
	snap, err := readSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	_ = writeFileAtomic(path, data) // a cache: answering matters more than keeping it
	return snap, nil
}

// advanceStore changes the documents of one store from commit oldTip (had:
// known) to tip: by tree diff when the old commit can be read, else by
// reading the store's memories in full.
func advanceStore(docs map[string]*snapDoc, s *gitstore.Store, oldTip string, had bool, tip string) error {
	to, ok := gitstore.HashOf(tip)
	if !ok {
		return fmt.Errorf("%w: bad tip %q", ErrSnapshot, tip)
	}
	rd, err := s.ReadAt(to)
	if err != nil {
		return err
	}
	if from, ok := gitstore.HashOf(oldTip); had && ok {
		if changed, removed, err := s.Diff(from, to); err == nil {
			for _, id := range removed {
				delete(docs, docKey(s.Scope, id))
			}
			for _, id := range changed {
				m, err := rd.Get(id)
				if errors.Is(err, gitstore.ErrNotFound) {
					delete(docs, docKey(s.Scope, id))
					continue
				}
				if err != nil {
					return err
				}
				if docs[docKey(s.Scope, id)], err = newSnapDoc(m); err != nil {
					return err
				}
			}
			return nil
		}
	}
	dropScope(docs, s.Scope)
	ms, err := rd.All()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if docs[docKey(s.Scope, m.ID)], err = newSnapDoc(m); err != nil {
			return err
		}
	}
	return nil
}

func dropScope(docs map[string]*snapDoc, scope gitstore.Scope) {
	prefix := string(scope) + ":"
	for k := range docs {
		if strings.HasPrefix(k, prefix) {
			delete(docs, k)
		}
	}
}

// Refresh brings the set's recall snapshot up to date with its stores, so
// that the next hook started by an agent finds it current. Writers call it
// right after a write; it costs a tree diff and one file write.
func Refresh(ctx context.Context, set *gitstore.Set) error {
	dir := Dir(set)
	if dir == "" {
		return nil
	}
	s, err := syncSnapshot(ctx, snapshotPath(dir), set.Stores())
	if err != nil {
		return err
	}
	s.close()
	return nil
}

// rebuildSnapshot writes the set's snapshot from scratch.
func rebuildSnapshot(ctx context.Context, dir string, stores []*gitstore.Store) (int, error) {
	path := snapshotPath(dir)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	s, err := syncSnapshot(ctx, path, stores)
	if err != nil {
		return 0, err
	}
	s.close()
	return s.ndocs, nil
}

// Rebuild rebuilds the set's index (git mem reindex) from scratch: the
// engine's, when one is wired in, and the recall snapshot. docs is the
// number of memories indexed.
func Rebuild(ctx context.Context, set *gitstore.Set, progress Progress) (docs int, err error) {
	dir := Dir(set)
	if dir == "" {
		return 0, fmt.Errorf("%w: this store has no directory to hold an index", gitstore.ErrNoRepo)
	}
	stores := set.Stores()
	if e := currentEngine(); e != nil {
		if docs, err = e.Rebuild(ctx, dir, stores, progress); err != nil {
			return 0, err
		}
	}
	n, err := rebuildSnapshot(ctx, dir, stores)
	if err != nil {
		return 0, err
	}
	if currentEngine() == nil {
		docs = n
		if progress != nil {
			progress(n, n)
		}
	}
	return docs, nil
}
