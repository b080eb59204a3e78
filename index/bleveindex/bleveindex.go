package bleveindex

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// stateFile is the sidecar next to the bleve files: the mapping version and
// the commit of each memory ref the index reflects. Reading it (and the refs)
// tells whether the index is up to date before bleve is opened at all.
const stateFile = "git-mem-state.json"

// Field names in the bleve documents.
const (
	fieldTerms  = "t" // analyzed terms joined by spaces, indexed
	fieldMemory = "m" // the memory's canonical JSON, stored
	fieldLen    = "n" // number of terms, stored
)

// Open timeouts: a reader waits this long for a writer's lock before recall
// falls back to the snapshot or a scan.
const (
	readTimeout  = 250 * time.Millisecond
	writeTimeout = 500 * time.Millisecond
)

// mergeEvery forces segments to be merged after this many incremental
// batches: no process stays open long enough for bleve's background merger.
const mergeEvery = 16

type state struct {
	Version int `json:"version"`
	// Analysis is the vocabulary the documents were analyzed with
	// (index.AnalysisPrint): its phrases shape their terms.
	Analysis uint32            `json:"analysis"`
	Tips     map[string]string `json:"tips"`
	Docs     int               `json:"docs"`
	Tokens   int               `json:"tokens"`
	Batches  int               `json:"batches"`
}

func readState(dir string) *state {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil
	}
	var st state
	if json.Unmarshal(data, &st) != nil || st.Version != index.MappingVersion || st.Analysis != index.AnalysisPrint() || st.Tips == nil {
		return nil
	}
	return &st
}

func writeState(dir string, st *state) error {
	st.Version, st.Analysis = index.MappingVersion, index.AnalysisPrint()
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(filepath.Join(dir, stateFile), data, 0o644)
}

func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer("terms", map[string]interface{}{
		"type":      custom.Name,
		"tokenizer": whitespace.Name,
	}); err != nil {
		panic(err)
	}
	dm := bleve.NewDocumentStaticMapping()
	terms := bleve.NewTextFieldMapping()
	terms.Analyzer = "terms"
	terms.Store = false
	terms.IncludeInAll = false
	terms.IncludeTermVectors = false
	terms.DocValues = false
	dm.AddFieldMappingsAt(fieldTerms, terms)
	for _, f := range []string{fieldMemory, fieldLen} {
		stored := bleve.NewTextFieldMapping()
		stored.Index = false
		stored.Store = true
		stored.IncludeInAll = false
		stored.IncludeTermVectors = false
		stored.DocValues = false
		dm.AddFieldMappingsAt(f, stored)
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = "terms"
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	return im
}

func isBusy(err error) bool {
	return err != nil && (errors.Is(err, index.ErrBusy) || strings.Contains(err.Error(), "timeout"))
}

func openBleve(dir string, readOnly bool) (bleve.Index, error) {
	timeout := writeTimeout
	if readOnly {
		timeout = readTimeout
	}
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{
		"bolt_timeout": timeout.String(),
		"read_only":    readOnly,
	})
	if isBusy(err) {
		return nil, fmt.Errorf("%w: %v", index.ErrBusy, err)
	}
	return idx, err
}

func docFields(raw []byte, terms []string) map[string]interface{} {
	return map[string]interface{}{
		fieldTerms:  strings.Join(terms, " "),
		fieldMemory: string(raw),
		fieldLen:    strconv.Itoa(len(terms)),
	}
}

// storedLen reads the stored term count of a document; false when absent.
func storedLen(r bindex.IndexReader, key string) (int, bool, error) {
	doc, err := r.Document(key)
	if err != nil || doc == nil {
		return 0, false, err
	}
	n, found := 0, false
	doc.VisitFields(func(f bindex.Field) {
		if f.Name() == fieldLen {
			n, _ = strconv.Atoi(string(f.Value()))
			found = true
		}
	})
	return n, found, nil
}

// engine is the bleve index of one set of stores.
type engine struct {
	dir      string
	stores   []*gitstore.Store
	progress index.Progress // told how a full rebuild advances; may be nil
}

// openSynced opens the index up to date with the stores' tips: read-only when
// it already is, else read-write after an incremental sync, else rebuilt.
// rebuilt reports a full rebuild. Changing the index (a sync or a rebuild)
// happens under the sync lock, and the state is read again once it is held:
// otherwise a rebuild could swap the directory under a sync, or a sync start
// from a state another process has since moved on from, and the index would
// silently miss memories.
func (e *engine) openSynced(ctx context.Context) (idx bleve.Index, st *state, rebuilt bool, err error) {
	tips, err := index.Tips(e.stores)
	if err != nil {
		return nil, nil, false, err
	}
	st = readState(e.dir)
	if st != nil && index.SameTips(st.Tips, tips) {
		idx, err = openBleve(e.dir, true)
		if err == nil || errors.Is(err, index.ErrBusy) {
			return idx, st, false, err
		}
		// broken: rebuilt below
	}
	unlock, err := lockSync(e.dir, writeTimeout)
	if err != nil {
		return nil, nil, false, err
	}
	defer unlock()
	if tips, err = index.Tips(e.stores); err != nil {
		return nil, nil, false, err
	}
	st = readState(e.dir)
	if st != nil && index.SameTips(st.Tips, tips) {
		// another process synced while this one waited for the lock
		if idx, err = openBleve(e.dir, true); err == nil || errors.Is(err, index.ErrBusy) {
			return idx, st, false, err
		}
		st = nil
	}
	if st != nil {
		idx, err = openBleve(e.dir, false)
		if errors.Is(err, index.ErrBusy) {
			return nil, nil, false, err
		}
		if err == nil {
			ok, err := e.incremental(ctx, idx, st, tips)
			if err == nil && ok {
				return idx, st, false, nil
			}
			idx.Close()
			if ctx.Err() != nil {
				return nil, nil, false, ctx.Err()
			}
		}
	}
	st, err = e.rebuild(ctx, e.progress)
	if err != nil {
		return nil, nil, true, err
	}
	idx, err = openBleve(e.dir, true)
	return idx, st, true, err
}

// lockSync takes the lock that serializes changes to the index directory (a
// file beside it, locked by the system (flock, LockFileEx) so that a killed
// holder releases it),
// waiting at most timeout; past that the index is busy.
func lockSync(dir string, timeout time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		locked, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if locked {
			return func() {
				unlockFile(f)
				f.Close()
			}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: another process is updating the index", index.ErrBusy)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// incremental brings an open index from st.Tips to tips by diffing trees.
// It returns false when that is impossible (history rewritten, a store gone).
func (e *engine) incremental(ctx context.Context, idx bleve.Index, st *state, tips map[string]string) (bool, error) {
	for k := range st.Tips {
		if _, ok := tips[k]; !ok {
			return false, nil
		}
	}
	adv, err := idx.Advanced()
	if err != nil {
		return false, err
	}
	r, err := adv.Reader()
	if err != nil {
		return false, err
	}
	defer r.Close()
	b := idx.NewBatch()
	for _, s := range e.stores {
		k := index.StoreKey(s)
		oldTip, newTip := st.Tips[k], tips[k]
		if oldTip == newTip {
			continue
		}
		from, ok1 := gitstore.HashOf(oldTip)
		to, ok2 := gitstore.HashOf(newTip)
		if !ok1 || !ok2 || newTip == "" {
			return false, nil
		}
		if anc, err := s.IsAncestor(ctx, from, to); err != nil || !anc {
			return false, nil
		}
		changed, removed, err := s.Diff(from, to)
		if err != nil {
			return false, nil
		}
		rd, err := s.ReadAt(to)
		if err != nil {
			return false, err
		}
		for _, id := range changed {
			m, err := rd.Get(id)
			if err != nil {
				return false, err
			}
			key := index.DocKey(s.Scope, id)
			oldLen, existed, err := storedLen(r, key)
			if err != nil {
				return false, nil
			}
			terms := index.DocTerms(m)
			raw, err := m.Encode()
			if err != nil {
				return false, err
			}
			if err := b.Index(key, docFields(raw, terms)); err != nil {
				return false, err
			}
			st.Tokens += len(terms) - oldLen
			if !existed {
				st.Docs++
			}
		}
		for _, id := range removed {
			key := index.DocKey(s.Scope, id)
			oldLen, existed, err := storedLen(r, key)
			if err != nil {
				return false, nil
			}
			b.Delete(key)
			if existed {
				st.Tokens -= oldLen
				st.Docs--
			}
		}
	}
	if err := idx.Batch(b); err != nil {
		return false, err
	}
	st.Batches++
	if st.Batches >= mergeEvery {
		if sc, ok := adv.(*scorch.Scorch); ok {
			// tiered: merges the small segments of recent syncs, not the whole index
			opts := mergeplan.DefaultMergePlanOptions
			if err := sc.ForceMerge(ctx, &opts); err == nil {
				st.Batches = 0
			}
		}
	}
	st.Tips = tips
	return true, writeState(e.dir, st)
}

// rebuild indexes the stores' memories into a fresh directory and swaps
// it in.
func (e *engine) rebuild(ctx context.Context, progress index.Progress) (*state, error) {
	tips, total, docs, err := index.ReadDocs(e.stores)
	if err != nil {
		return nil, err
	}
	return e.rebuildFrom(ctx, tips, total, docs, progress)
}

// rebuildFrom indexes docs, the stores at tips, into a fresh directory and
// swaps it in. The documents come one at a time and are indexed in
// batches: a rebuild never holds every memory.
func (e *engine) rebuildFrom(ctx context.Context, tips map[string]string, total int, docs index.Docs, progress index.Progress) (*state, error) {
	if err := os.MkdirAll(filepath.Dir(e.dir), 0o755); err != nil {
		return nil, err
	}
	removeLeftovers(e.dir)
	tmp := fmt.Sprintf("%s.tmp-%d-%d", e.dir, os.Getpid(), rand.Uint32())
	idx, err := bleve.NewUsing(tmp, newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	cleanup := func() { idx.Close(); os.RemoveAll(tmp) }
	st := &state{Version: index.MappingVersion, Tips: tips}
	const batchSize = 2000
	b := idx.NewBatch()
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		if err := idx.Batch(b); err != nil {
			return err
		}
		b = idx.NewBatch()
		if progress != nil {
			progress(st.Docs, max(total, st.Docs))
		}
		return nil
	}
	err = docs(func(d index.Doc) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.Index(d.Key, docFields(d.Raw, d.Terms)); err != nil {
			return err
		}
		st.Docs++
		st.Tokens += len(d.Terms)
		if b.Size() >= batchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := flush(); err != nil {
		cleanup()
		return nil, err
	}
	if st.Docs > batchSize {
		if adv, err := idx.Advanced(); err == nil {
			if sc, ok := adv.(*scorch.Scorch); ok {
				_ = sc.ForceMerge(ctx, nil)
			}
		}
	}
	if err := idx.Close(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := writeState(tmp, st); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	old := fmt.Sprintf("%s.old-%d-%d", e.dir, os.Getpid(), rand.Uint32())
	if err := os.Rename(e.dir, old); err != nil && !os.IsNotExist(err) {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, e.dir); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	os.RemoveAll(old)
	if progress != nil && st.Docs < total || progress != nil && st.Docs == 0 {
		progress(st.Docs, st.Docs) // invalid documents were skipped, or there were none
	}
	return st, nil
}

// removeLeftovers deletes the temporary and replaced index directories that
// a killed rebuild left behind (older than ten minutes, so that a rebuild in
// progress in another process is left alone).
func removeLeftovers(dir string) {
	for _, pat := range []string{dir + ".tmp-*", dir + ".old-*"} {
		matches, _ := filepath.Glob(pat)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
				os.RemoveAll(m)
			}
		}
	}
}

// bleveCorpus scores against an open index.
type bleveCorpus struct {
	idx bleve.Index // closed with the reader when set
	ctx context.Context
	r   bindex.IndexReader
	n   int
	avg float64
}

func newBleveCorpus(ctx context.Context, idx bleve.Index, st *state) (*bleveCorpus, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	n, err := r.DocCount()
	if err != nil {
		r.Close()
		return nil, err
	}
	avg := 1.0
	if st.Docs > 0 {
		avg = float64(st.Tokens) / float64(st.Docs)
	}
	return &bleveCorpus{ctx: ctx, r: r, n: int(n), avg: avg}, nil
}

// Close releases the reader.
func (c *bleveCorpus) Close() error {
	err := c.r.Close()
	if c.idx != nil {
		if err2 := c.idx.Close(); err == nil {
			err = err2
		}
	}
	return err
}

func (c *bleveCorpus) DocCount() int { return c.n }

func (c *bleveCorpus) AvgLen() float64 { return c.avg }

func (c *bleveCorpus) Postings(term string, fn func(doc uint64, tf, dl int)) error {
	tfr, err := c.r.TermFieldReader(c.ctx, []byte(term), fieldTerms, true, true, false)
	if err != nil {
		return err
	}
	defer tfr.Close()
	var d bindex.TermFieldDoc
	for {
		next, err := tfr.Next(&d)
		if err != nil {
			return err
		}
		if next == nil {
			return nil
		}
		if len(next.ID) != 8 {
			return fmt.Errorf("index: unexpected internal id %x", next.ID)
		}
		fn(binary.BigEndian.Uint64(next.ID), int(next.Freq), index.NormLen(next.Norm))
	}
}

func (c *bleveCorpus) DF(term string) (int, error) {
	tfr, err := c.r.TermFieldReader(c.ctx, []byte(term), fieldTerms, false, false, false)
	if err != nil {
		return 0, err
	}
	defer tfr.Close()
	return int(tfr.Count()), nil
}

// postingsAmong seeks each candidate in the term's postings (leapfrogging
// over the ones the postings skip past).
func (c *bleveCorpus) PostingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error {
	if len(docs) == 0 {
		return nil
	}
	tfr, err := c.r.TermFieldReader(c.ctx, []byte(term), fieldTerms, true, true, false)
	if err != nil {
		return err
	}
	defer tfr.Close()
	var d bindex.TermFieldDoc
	var id [8]byte
	i := 0
	for i < len(docs) {
		binary.BigEndian.PutUint64(id[:], docs[i])
		next, err := tfr.Advance(bindex.IndexInternalID(id[:]), &d)
		if err != nil {
			return err
		}
		if next == nil {
			return nil
		}
		if len(next.ID) != 8 {
			return fmt.Errorf("index: unexpected internal id %x", next.ID)
		}
		got := binary.BigEndian.Uint64(next.ID)
		for i < len(docs) && docs[i] < got {
			i++
		}
		if i < len(docs) && docs[i] == got {
			fn(got, int(next.Freq), index.NormLen(next.Norm))
			i++
		}
	}
	return nil
}

func (c *bleveCorpus) External(doc uint64) (string, error) {
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], doc)
	return c.r.ExternalID(bindex.IndexInternalID(id[:]))
}

func (c *bleveCorpus) Load(key string) (*gitstore.Memory, error) {
	doc, err := c.r.Document(key)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, fmt.Errorf("%w: %s", index.ErrNoDocument, key)
	}
	var raw []byte
	doc.VisitFields(func(f bindex.Field) {
		if f.Name() == fieldMemory {
			raw = append([]byte(nil), f.Value()...)
		}
	})
	m, err := gitstore.DecodeMemory(raw)
	if err != nil {
		return nil, fmt.Errorf("index: document %s: %w", key, err)
	}
	return m, nil
}

// Engine is the bleve index as an index.Engine: index.UseEngine(Engine{})
// makes recall, dedupe and reindex use it.
type Engine struct{}

var _ index.Engine = Engine{}

// Open brings the index in dir up to date with the stores and opens it for reading.
func (Engine) Open(ctx context.Context, dir string, stores []*gitstore.Store, progress index.Progress) (index.Corpus, bool, error) {
	bleveLog.use(dir)
	e := &engine{dir: dir, stores: stores, progress: progress}
	idx, st, rebuilt, err := e.openSynced(ctx)
	if err != nil {
		return nil, rebuilt, err
	}
	c, err := newBleveCorpus(ctx, idx, st)
	if err != nil {
		idx.Close()
		return nil, rebuilt, err
	}
	c.idx = idx
	return c, rebuilt, nil
}

// Rebuild indexes docs from scratch (git mem reindex). It waits for a sync
// in progress rather than giving up.
func (Engine) Rebuild(ctx context.Context, dir string, tips map[string]string, total int, docs index.Docs, progress index.Progress) (int, error) {
	bleveLog.use(dir)
	e := &engine{dir: dir}
	unlock, err := lockSync(dir, 10*time.Minute)
	if err != nil {
		return 0, err
	}
	defer unlock()
	st, err := e.rebuildFrom(ctx, tips, total, docs, progress)
	if err != nil {
		return 0, err
	}
	return st.Docs, nil
}

// Discard removes the sidecar state, so that the next Open rebuilds.
func (Engine) Discard(dir string) { os.Remove(filepath.Join(dir, stateFile)) }
