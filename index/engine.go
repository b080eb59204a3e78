package index

import (
	"context"
	"errors"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
)

// MappingVersion changes whenever the analysis or the stored document
// changes; an index or snapshot of another version is rebuilt.
const MappingVersion = 4

// ErrBusy means the index was held by another process past the open timeout.
var ErrBusy = errors.New("index is busy")

// ErrNoDocument is what a corpus's Load returns (wrapped) for a key it does
// not hold.
var ErrNoDocument = errors.New("no such document in the index")

// Progress is told how far a rebuild is: done of total memories.
type Progress func(done, total int)

// Engine is a persistent full-text index of a set's stores that Recall
// consults first when one is wired in with UseEngine. Package bleveindex
// provides the bleve one; a binary that never calls UseEngine (git-mem, the
// hook binary) links none and recalls from the snapshot (index/snapshot).
type Engine interface {
	// Open brings the index in dir up to date with the stores' tips and
	// returns a corpus reading it; rebuilt reports a rebuild from scratch.
	// An index held by another process past a timeout is ErrBusy.
	Open(ctx context.Context, dir string, stores []*gitstore.Store, progress Progress) (c Corpus, rebuilt bool, err error)
	// Rebuild indexes docs from scratch into dir, as the stores at tips
	// (total documents, for the progress).
	Rebuild(ctx context.Context, dir string, tips map[string]string, total int, docs Docs, progress Progress) (n int, err error)
	// Discard forgets what the index in dir reflects, so that the next Open
	// rebuilds it (after it answered badly).
	Discard(dir string)
}

// Doc is one memory as a rebuild reads it: its key (DocKey), the memory,
// its indexed terms (DocTerms) and its canonical JSON.
type Doc struct {
	Key    string
	Memory *gitstore.Memory
	Terms  []string
	Raw    []byte
}

// Docs calls yield with each memory of a rebuild, one at a time, and stops
// at yield's first error.
type Docs func(yield func(Doc) error) error

// ReadDocs reads the stores at their tips for a rebuild: the tips, how many
// documents there are (from the trees, no memory read) and the documents,
// read one at a time when called, so that a rebuild never holds every
// memory.
func ReadDocs(stores []*gitstore.Store) (tips map[string]string, total int, docs Docs, err error) {
	if tips, err = Tips(stores); err != nil {
		return nil, 0, nil, err
	}
	readers := make([]*gitstore.Reader, len(stores))
	for i, s := range stores {
		to, _ := gitstore.HashOf(tips[StoreKey(s)])
		if readers[i], err = s.ReadAt(to); err != nil {
			return nil, 0, nil, err
		}
		hs, err := readers[i].BlobHashes()
		if err != nil {
			return nil, 0, nil, err
		}
		total += len(hs)
	}
	docs = func(yield func(Doc) error) error {
		for i, s := range stores {
			err := readers[i].Each(func(m *gitstore.Memory) error {
				raw, err := m.Encode()
				if err != nil {
					return err
				}
				return yield(Doc{Key: DocKey(s.Scope, m.ID), Memory: m, Terms: DocTerms(m), Raw: raw})
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	return tips, total, docs, nil
}

// Corpus is what ranking reads from an engine's index: document counts,
// lengths and postings of pre-analyzed terms (DocTerms), and the stored
// memories. Document numbers are the engine's own, opaque to ranking.
type Corpus interface {
	DocCount() int
	// AvgLen is the mean number of terms per document.
	AvgLen() float64
	// DF is the number of documents containing term.
	DF(term string) (int, error)
	// Postings calls fn for every document containing term, with the
	// term's frequency and the document's length (NormLen of the stored norm).
	Postings(term string, fn func(doc uint64, tf, dl int)) error
	// PostingsAmong calls fn for at least the documents of docs (ascending)
	// that contain term.
	PostingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error
	// External is the document's key (DocKey).
	External(doc uint64) (string, error)
	// Load returns the memory stored under a key (ErrNoDocument, wrapped,
	// when there is none).
	Load(key string) (*gitstore.Memory, error)
	Close() error
}

var engineMu sync.RWMutex
var engine Engine

// UseEngine wires in the persistent index Recall, Remember and Rebuild use
// (nil: none). The MCP server's binary (git-mem-mcp) calls it once at
// start-up with the bleve engine; it is explicit rather than done by an init function so that
// linking package index never drags bleve into a binary, and a binary (or a
// test) says which engine it runs with.
func UseEngine(e Engine) {
	engineMu.Lock()
	engine = e
	engineMu.Unlock()
}

func currentEngine() Engine {
	engineMu.RLock()
	defer engineMu.RUnlock()
	return engine
}

// engineCorpus adapts an engine's exported Corpus to ranking's loader.
type engineCorpus struct {
	c Corpus
	// created reads the memories' creation times for sittings (sitting.go)
	// from the set's snapshot, asked only when a recall returns weak
	// matches; nil, or nil returned: no sittings.
	created func() createdScanner
}

func (e engineCorpus) scanCreated(fn func(key []byte, created int64)) error {
	if e.created == nil {
		return nil
	}
	if sc := e.created(); sc != nil {
		return sc.scanCreated(fn)
	}
	return nil
}

func (e engineCorpus) docCount() int                       { return e.c.DocCount() }
func (e engineCorpus) avgLen() float64                     { return e.c.AvgLen() }
func (e engineCorpus) df(term string) (int, error)         { return e.c.DF(term) }
func (e engineCorpus) external(doc uint64) (string, error) { return e.c.External(doc) }
func (e engineCorpus) postings(term string, fn func(doc uint64, tf, dl int)) error {
	return e.c.Postings(term, fn)
}

var _ amongReader = engineCorpus{}

func (e engineCorpus) postingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error {
	return e.c.PostingsAmong(term, docs, fn)
}
func (e engineCorpus) load(key string) (*entry, error) {
	m, err := e.c.Load(key)
	if err != nil {
		return nil, err
	}
	return &entry{key: key, scope: scopeOfKey(key), m: m}, nil
}

// DocKey is the key of a memory in an index: "scope:id".
func DocKey(scope gitstore.Scope, id string) string { return docKey(scope, id) }

// DocTerms are the indexed terms of a memory (its text, tags and paths,
// analyzed), in order, repeats kept: what an engine indexes for it.
func DocTerms(m *gitstore.Memory) []string { return docTerms(m, analyzer{}) }

// NormLen turns a stored field-length norm (float32(1/sqrt(length))) back
// into the length scoring uses.
func NormLen(norm float64) int { return normLen(norm) }

// Dir is where the index of a set lives: <git common dir>/mem/index of the
// repository (of the personal store outside any repository); "" when the set
// has no directory (in-memory repositories).
func Dir(set *gitstore.Set) string {
	switch {
	case set == nil:
		return ""
	case set.Repo != nil:
		return set.Repo.Mem().Index()
	case set.Personal != nil:
		return set.Personal.Mem().Index()
	}
	return ""
}

// StoreKey names a store in the tips an index or snapshot records: its
// scope and ref, which tell the stores of a set apart, and not where the
// repository lies, so that a repository moved or copied to another
// directory keeps its caches. A recorded tip is a commit, named by its
// content: wherever the store now is, the changes since it are a tree diff
// away, and a commit the store no longer has makes that store be read in
// full.
func StoreKey(s *gitstore.Store) string {
	return string(s.Scope) + " " + s.Ref
}

// Tips reads the commit each store's ref points at ("" for none), by StoreKey.
func Tips(stores []*gitstore.Store) (map[string]string, error) {
	tips := map[string]string{}
	for _, s := range stores {
		h, err := s.Tip()
		if err != nil {
			return nil, err
		}
		t := ""
		if !h.IsZero() {
			t = h.String()
		}
		tips[StoreKey(s)] = t
	}
	return tips, nil
}

// SameTips reports whether two tip maps are equal.
func SameTips(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
