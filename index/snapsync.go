package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// syncSnapshot returns the snapshot at path, with its delta, up to date
// with the stores' tips: as read when it is, else brought forward by
// diffing each changed store's tree from the recorded commit and appending
// the change to the delta (or folding base and delta into a new base when
// the delta is full), or rebuilt from the stores when it is missing or
// unusable.
func syncSnapshot(ctx context.Context, path string, stores []*gitstore.Store, acc Access) (*snapView, error) {
	tips, err := Tips(stores)
	if err != nil {
		return nil, err
	}
	v := takeKeptView(acc, path)
	if v == nil {
		v, err = openView(path, acc.Map)
	}
	if err == nil {
		if SameTips(v.tips, tips) {
			return v, nil
		}
		nv, err := v.forward(ctx, path, stores, tips, acc)
		if err == nil {
			return nv, nil
		}
		v.close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// damaged: rebuilt below
	}
	ch := newSnapChanges()
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := advanceStore(ch, s, "", false, tips[StoreKey(s)]); err != nil {
			return nil, err
		}
	}
	return writeSnapshot(path, tips, ch.put, false)
}

// writeSnapshot writes a new base of documents by key reflecting tips (and
// drops the delta), and returns its view. A file that cannot be written is
// an error only when must is set (a rebuild asked for: reindex, a purge's
// scrub); otherwise the view answers from memory.
func writeSnapshot(path string, tips map[string]string, docs map[string]*snapDoc, must bool) (*snapView, error) {
	data := encodeSnapshot(tips, docs)
	v, err := viewOf(data)
	if err != nil {
		return nil, err
	}
	// a cache: answering matters more than keeping it
	werr := lockfile.WriteAtomic(path, data, 0o644)
	if werr == nil {
		werr = os.Remove(deltaPath(path))
		if errors.Is(werr, os.ErrNotExist) {
			werr = nil
		}
	}
	if werr != nil && must {
		v.close()
		return nil, fmt.Errorf("could not write the recall snapshot %s: %w", path, werr)
	}
	return v, nil
}

// forward brings the view to tips: one segment appended to the delta, or,
// when the segment would take the delta past its fold size (and folds are
// not deferred), or the delta is damaged, or a store must be read in full,
// a new base. It returns the view brought forward (v itself, or a new
// one); on an error the caller closes v.
func (v *snapView) forward(ctx context.Context, path string, stores []*gitstore.Store, tips map[string]string, acc Access) (*snapView, error) {
	ch := newSnapChanges()
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := StoreKey(s)
		if oldTip, had := v.tips[k]; had && oldTip == tips[k] {
			continue
		} else if err := advanceStore(ch, s, oldTip, had, tips[k]); err != nil {
			return nil, err
		}
	}
	// stores the snapshot knew that this set no longer reads
	for k := range v.tips {
		if _, ok := tips[k]; !ok {
			scope, _, _ := strings.Cut(k, " ")
			ch.scopes[gitstore.Scope(scope)] = true
		}
	}
	if len(ch.scopes) == 0 && !v.damaged {
		sg, err := v.segmentFor(tips, ch)
		if err != nil {
			return nil, err
		}
		data := sg.encode(v.base)
		limit := foldAt(v.base.Size())
		if acc.DeferFolds {
			limit = max(limit, deferredFoldAt)
		}
		if v.deltaSize+int64(len(data)) <= limit {
			if appendSegment(deltaPath(path), data) == nil {
				v.deltaSize += int64(len(data))
			}
			v.apply(sg)
			return v, nil
		}
	}
	return v.foldInto(path, tips, ch)
}

// foldInto writes a new base at path holding the view's base and delta and
// the changes ch, reflecting tips, removes the delta, and returns the new
// base's view (v is closed).
func (v *snapView) foldInto(path string, tips map[string]string, ch *snapChanges) (*snapView, error) {
	// bringing it forward reads the whole base: once, not per part
	full, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base, err := readSnapshot(full)
	if err != nil || base.CRC() != v.base.CRC() {
		return nil, fmt.Errorf("%w: the snapshot changed while it was read", ErrSnapshot)
	}
	v.base.Close()
	v.base = base // in memory from here: closing it again is harmless
	data, err := v.fold(tips, ch)
	if err != nil {
		return nil, err
	}
	v.close() // the new base holds all it read
	nv, err := viewOf(data)
	if err != nil {
		return nil, err
	}
	if lockfile.WriteAtomic(path, data, 0o644) == nil {
		os.Remove(deltaPath(path))
	}
	return nv, nil
}

// snapChanges are what tree diffs found changed since a snapshot: keys to
// drop (removed or replaced), stores whose documents all go, and the new
// documents.
type snapChanges struct {
	drop   map[string]bool
	scopes map[gitstore.Scope]bool
	put    map[string]*snapDoc
	terms  interner
}

func newSnapChanges() *snapChanges {
	return &snapChanges{drop: map[string]bool{}, scopes: map[gitstore.Scope]bool{}, put: map[string]*snapDoc{}, terms: interner{}}
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
				if errors.Is(err, memerr.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if ch.put[key], err = newSnapDoc(m, ch.terms); err != nil {
					return err
				}
			}
			return nil
		}
	}
	ch.scopes[s.Scope] = true
	// one memory at a time: only its JSON and terms are kept
	return rd.Each(func(m *gitstore.Memory) error {
		d, err := newSnapDoc(m, ch.terms)
		ch.put[docKey(s.Scope, m.ID)] = d
		return err
	})
}

// apply writes the snapshot with the changes made: the documents kept are
// copied and their postings renumbered, term by term, in one pass merged
// with the new documents' postings; nothing is analyzed again but the new
// documents.
func applyChanges(s *snapshot.File, tips map[string]string, ch *snapChanges) ([]byte, error) {
	putKeys := make([]string, 0, len(ch.put))
	for k := range ch.put {
		putKeys = append(putKeys, k)
	}
	sort.Strings(putKeys)
	baseSums, err := s.Summaries()
	if err != nil {
		return nil, err
	}
	var keys []string
	var raws [][]byte
	var sums []snapshot.Summary
	oldToNew := make([]int, s.Docs())
	putID := make(map[string]int, len(putKeys))
	j := 0
	addPut := func(upTo string, all bool) {
		for ; j < len(putKeys) && (all || putKeys[j] < upTo); j++ {
			putID[putKeys[j]] = len(keys)
			keys = append(keys, putKeys[j])
			raws = append(raws, ch.put[putKeys[j]].raw)
			sm := ch.put[putKeys[j]].sum
			sm.Key = putKeys[j]
			sums = append(sums, sm)
		}
	}
	for i := 0; i < s.Docs(); i++ {
		k, raw, err := s.Doc(i)
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
		sums = append(sums, baseSums[i])
	}
	addPut("", true)
	// the new documents' postings, by term
	tokens := 0
	added := map[string][]snapshot.Post{}
	for _, k := range putKeys {
		d := ch.put[k]
		tokens += d.n
		dl := int32(normLen(lenAsNorm(d.n)))
		for _, e := range d.tf {
			added[e.term] = append(added[e.term], snapshot.Post{Doc: int32(putID[k]), TF: e.n, DL: dl})
		}
	}
	addedTerms := make([]string, 0, len(added))
	for t := range added {
		addedTerms = append(addedTerms, t)
		sort.Slice(added[t], func(a, b int) bool { return added[t][a].Doc < added[t][b].Doc })
	}
	sort.Strings(addedTerms)
	hint := int(s.Size() + s.Size()/8)
	for _, d := range ch.put {
		hint += len(d.raw) + 8*len(d.tf)
	}
	var kept, merged []snapshot.Post
	data, err := snapshot.Encode(snapStamp(), tips, keys, raws, sums, 0, hint, func(emit func(string, []snapshot.Post)) error {
		a := 0
		for bi := range s.Blocks() {
			var ferr error
			err := s.EachTerm(bi, false, func(tb []byte, ti snapshot.TermInfo) bool {
				t := string(tb)
				for ; a < len(addedTerms) && addedTerms[a] < t; a++ {
					emit(addedTerms[a], added[addedTerms[a]])
				}
				kept = kept[:0]
				ferr = s.PostingsOf(ti, func(doc uint64, tf, dl int) {
					if n := oldToNew[doc]; n >= 0 {
						kept = append(kept, snapshot.Post{Doc: int32(n), TF: int32(tf), DL: int32(dl)})
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
	snapshot.SetTokens(data, tokens)
	return data, nil
}

// mergePosts merges two postings lists ascending by document into out.
func mergePosts(out, a, b []snapshot.Post) []snapshot.Post {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].Doc < b[j].Doc {
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
	return refreshFrom(ctx, set, nil, Access{})
}

// closeView closes v, if any.
func closeView(v *snapView) {
	if v != nil {
		v.close()
	}
}

// refreshFrom is Refresh from v, a view of the snapshot the caller opened
// before its write (nil: none), which it closes: when the files are still
// what v read, v is brought forward instead of the snapshot being read
// again (at 100,000 memories, reading its table of contents and delta is
// a sixth of an add). A fault reading a mapped snapshot is an error
// (snapshot.FaultsAsErrors).
func refreshFrom(ctx context.Context, set *gitstore.Set, v *snapView, acc Access) error {
	return snapshot.FaultsAsErrors(func() error { return refreshView(ctx, set, v, acc) })
}

func refreshView(ctx context.Context, set *gitstore.Set, v *snapView, acc Access) error {
	path := SnapshotPath(set)
	if path == "" {
		closeView(v)
		return nil
	}
	if v != nil {
		if v.unchanged(path) {
			tips, err := Tips(set.Stores())
			if err == nil && SameTips(v.tips, tips) {
				return closeFolding(path, v, acc)
			}
			if err == nil {
				var nv *snapView
				if nv, err = v.forward(ctx, path, set.Stores(), tips, acc); err == nil {
					return closeFolding(path, nv, acc)
				}
			}
		}
		v.close()
	}
	s, err := syncSnapshot(ctx, path, set.Stores(), acc)
	if err != nil {
		return err
	}
	return closeFolding(path, s, acc)
}

// closeFolding closes v, an up-to-date view of the snapshot at path, after
// folding its delta into a new base when the delta is past its fold size
// and folds are not deferred: a Refresh with nothing to write still folds,
// which is how a warm-up takes the fold off the hooks.
func closeFolding(path string, v *snapView, acc Access) error {
	if v.deltaSize > foldAt(v.base.Size()) && !acc.DeferFolds {
		nv, err := v.foldInto(path, v.tips, newSnapChanges())
		if err != nil {
			v.close()
			return err
		}
		v = nv
	}
	keepOrClose(acc, path, v)
	return nil
}

// Rebuild rebuilds the set's index (git mem reindex) from scratch: the
// engine's, when one is wired in, and the recall snapshot, from one reading
// and analysis of each memory. Without an engine the engine's index
// directory is removed instead (removeEngineIndex). docs is the number of
// memories indexed.
func Rebuild(ctx context.Context, set *gitstore.Set, progress Progress) (docs int, err error) {
	dir := Dir(set)
	if dir == "" {
		return 0, fmt.Errorf("%w: this store has no directory to hold an index", memerr.ErrNoRepo)
	}
	tips, total, read, err := ReadDocs(set.Stores())
	if err != nil {
		return 0, err
	}
	ch := newSnapChanges()
	both := func(yield func(Doc) error) error {
		return read(func(d Doc) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			// the snapshot counts a copy: the engine keeps the terms' order
			terms := append([]string(nil), d.Terms...)
			ch.put[d.Key] = &snapDoc{raw: d.Raw, n: len(terms), tf: countTerms(terms, ch.terms), sum: snapshot.SummaryOf("", d.Memory)}
			return yield(d)
		})
	}
	if e := currentEngine(); e != nil {
		docs, err = e.Rebuild(ctx, dir, tips, total, both, progress)
	} else {
		if err := removeEngineIndex(dir); err != nil {
			return 0, err
		}
		err = both(func(Doc) error {
			if docs++; progress != nil && docs%1000 == 0 {
				progress(docs, max(total, docs))
			}
			return nil
		})
		if err == nil && progress != nil {
			progress(docs, docs)
		}
	}
	if err != nil {
		return 0, err
	}
	path := SnapshotPath(set)
	v, err := writeSnapshot(path, tips, ch.put, true)
	dropKeptView(path)
	if err != nil {
		return 0, err
	}
	v.close()
	return docs, nil
}
