package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// syncSnapshot returns the snapshot at path up to date with the stores'
// tips: as read when it is, else brought forward by diffing each changed
// store's tree from the recorded commit (or rebuilt from the stores when it
// is missing or unusable), written back, and returned.
func syncSnapshot(ctx context.Context, path string, stores []*gitstore.Store) (*snapshot, error) {
	tips, err := Tips(stores)
	if err != nil {
		return nil, err
	}
	old, err := openSnapshot(path)
	if err == nil && SameTips(old.tips, tips) {
		return old, nil
	}
	if old != nil {
		// bringing it forward reads the whole file: once, not per part
		old.close()
		data, err := os.ReadFile(path)
		if old = nil; err == nil {
			old, _ = readSnapshot(bytes.NewReader(data), int64(len(data)))
		}
	}
	var data []byte
	if old != nil {
		ch := newSnapChanges()
		for _, s := range stores {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			k := StoreKey(s)
			if oldTip, had := old.tips[k]; had && oldTip == tips[k] {
				continue
			} else if err := advanceStore(ch, s, oldTip, had, tips[k]); err != nil {
				return nil, err
			}
		}
		// stores the snapshot knew that this set no longer reads
		for k := range old.tips {
			if _, ok := tips[k]; !ok {
				scope, _, _ := strings.Cut(k, " ")
				ch.scopes[gitstore.Scope(scope)] = true
			}
		}
		if data, err = old.apply(tips, ch); err != nil {
			data = nil // damaged: rebuilt below
		}
	}
	if data == nil {
		ch := newSnapChanges()
		for _, s := range stores {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := advanceStore(ch, s, "", false, tips[StoreKey(s)]); err != nil {
				return nil, err
			}
		}
		data = encodeSnapshot(tips, ch.put)
	}
	snap, err := readSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	_ = gitstore.WriteFileAtomic(path, data, 0o644) // a cache: answering matters more than keeping it
	return snap, nil
}

// snapChanges are what tree diffs found changed since a snapshot: keys to
// drop (removed or replaced), stores whose documents all go, and the new
// documents.
type snapChanges struct {
	drop   map[string]bool
	scopes map[gitstore.Scope]bool
	put    map[string]*snapDoc
}

func newSnapChanges() *snapChanges {
	return &snapChanges{drop: map[string]bool{}, scopes: map[gitstore.Scope]bool{}, put: map[string]*snapDoc{}}
}

// advanceStore records the changes of one store from commit oldTip (had:
// known) to tip: by tree diff when the old commit can be read, else as the
// store's memories in full.
func advanceStore(ch *snapChanges, s *gitstore.Store, oldTip string, had bool, tip string) error {
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
				ch.drop[docKey(s.Scope, id)] = true
			}
			for _, id := range changed {
				key := docKey(s.Scope, id)
				ch.drop[key] = true
				m, err := rd.Get(id)
				if errors.Is(err, gitstore.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if ch.put[key], err = newSnapDoc(m); err != nil {
					return err
				}
			}
			return nil
		}
	}
	ch.scopes[s.Scope] = true
	ms, err := rd.All()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if ch.put[docKey(s.Scope, m.ID)], err = newSnapDoc(m); err != nil {
			return err
		}
	}
	return nil
}

// apply writes the snapshot with the changes made: the documents kept are
// copied and their postings renumbered, term by term, in one pass merged
// with the new documents' postings; nothing is analyzed again but the new
// documents.
func (s *snapshot) apply(tips map[string]string, ch *snapChanges) ([]byte, error) {
	putKeys := make([]string, 0, len(ch.put))
	for k := range ch.put {
		putKeys = append(putKeys, k)
	}
	sort.Strings(putKeys)
	var keys []string
	var raws [][]byte
	oldToNew := make([]int, s.ndocs)
	putID := make(map[string]int, len(putKeys))
	j := 0
	addPut := func(upTo string, all bool) {
		for ; j < len(putKeys) && (all || putKeys[j] < upTo); j++ {
			putID[putKeys[j]] = len(keys)
			keys = append(keys, putKeys[j])
			raws = append(raws, ch.put[putKeys[j]].raw)
		}
	}
	for i := 0; i < s.ndocs; i++ {
		k, raw, err := s.doc(i)
		if err != nil {
			return nil, err
		}
		if ch.drop[k] || ch.scopes[scopeOfKey(k)] || ch.put[k] != nil {
			oldToNew[i] = -1
			continue
		}
		addPut(k, false)
		oldToNew[i] = len(keys)
		keys = append(keys, k)
		raws = append(raws, raw)
	}
	addPut("", true)
	// the new documents' postings, by term
	tokens := 0
	added := map[string][]post{}
	for _, k := range putKeys {
		d := ch.put[k]
		tokens += d.n
		dl := normLen(lenAsNorm(d.n))
		for t, tf := range d.tf {
			added[t] = append(added[t], post{putID[k], tf, dl})
		}
	}
	addedTerms := make([]string, 0, len(added))
	for t := range added {
		addedTerms = append(addedTerms, t)
		sort.Slice(added[t], func(a, b int) bool { return added[t][a].doc < added[t][b].doc })
	}
	sort.Strings(addedTerms)
	hint := int(s.size + s.size/8)
	for _, d := range ch.put {
		hint += len(d.raw) + 8*len(d.tf)
	}
	var kept, merged []post
	data, err := encodeParts(tips, keys, raws, 0, hint, func(emit func(string, []post)) error {
		a := 0
		for bi := range s.blocks {
			var ferr error
			err := s.eachTerm(bi, func(t string, ti termInfo) bool {
				for ; a < len(addedTerms) && addedTerms[a] < t; a++ {
					emit(addedTerms[a], added[addedTerms[a]])
				}
				kept = kept[:0]
				ferr = s.postingsOf(ti, func(doc uint64, tf, dl int) {
					if n := oldToNew[doc]; n >= 0 {
						kept = append(kept, post{n, tf, dl})
						tokens += tf
					}
				})
				if ferr != nil {
					return false
				}
				if a < len(addedTerms) && addedTerms[a] == t {
					merged = mergePosts(merged[:0], kept, added[t])
					emit(t, merged)
					a++
				} else {
					emit(t, kept)
				}
				return true
			})
			if err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
		}
		for ; a < len(addedTerms); a++ {
			emit(addedTerms[a], added[addedTerms[a]])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	binary.LittleEndian.PutUint64(data[32:], uint64(tokens))
	binary.LittleEndian.PutUint32(data[12:], snapChecksum(data))
	return data, nil
}

// mergePosts merges two postings lists ascending by document into out.
func mergePosts(out, a, b []post) []post {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].doc < b[j].doc {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// Refresh brings the set's recall snapshot up to date with its stores, so
// that the next hook started by an agent finds it current. Writers call it
// right after a write; it costs a tree diff and one file write.
func Refresh(ctx context.Context, set *gitstore.Set) error {
	path := SnapshotPath(set)
	if path == "" {
		return nil
	}
	s, err := syncSnapshot(ctx, path, set.Stores())
	if err != nil {
		return err
	}
	s.close()
	return nil
}

// rebuildSnapshot writes the set's snapshot from scratch.
func rebuildSnapshot(ctx context.Context, path string, stores []*gitstore.Store) (int, error) {
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
	n, err := rebuildSnapshot(ctx, SnapshotPath(set), stores)
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
