package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// The snapshot is a second, compact cache of the index: one file holding
// what ranking needs (per-term postings, document lengths, the memories'
// canonical JSON) in a layout read with one os.ReadFile and no decoding of
// what a query does not touch. It lets a process that links no engine (the
// hook binary) rank exactly like the bleve index and the scan (it is the
// same corpus: same terms, same quantized lengths, same counts) without
// reading every blob of a store. It records the ref tips it reflects and is
// brought forward by tree diffs in plain Go, atomically replaced (temp file
// and rename) each time; deleting it is always safe.
//
// Layout (integers little-endian):
//
//	0   magic "GMSNAP\x00\n"
//	8   u32 version (snapshotFormat*1000 + MappingVersion)
//	12  u32 CRC-32C of everything from offset 20 to the end
//	16  u32 length of everything from offset 20 to the end
//	20  uvarint number of tips, then per tip: uvarint-prefixed store key and commit
//	    uvarint documents, uvarint terms, uvarint total term count
//	    documents: 20 bytes each, ascending by key:
//	      u32 key offset, u32 JSON offset (the key runs up to it), u32 JSON length,
//	      u32 length as scoring reads it (quantized like bleve's norm), u32 number of terms
//	    terms: 12 bytes each, ascending:
//	      u32 term offset, u32 postings offset (the term runs up to it), u32 document frequency
//	    data: keys, JSON, terms and postings (uvarint document delta, uvarint frequency)
//
// Offsets are relative to the start of the data. A missing, truncated,
// corrupt or other-version snapshot is rebuilt from the stores; one whose
// tips differ from the refs is brought forward first, so it never answers
// for another state of the stores.
const (
	snapshotMagic  = "GMSNAP\x00\n"
	snapshotFormat = 1
	snapshotName   = "recall.snapshot"
	snapHeader     = 20
	snapDocSize    = 20
	snapTermSize   = 12
)

var snapshotVersion = uint32(snapshotFormat*1000 + MappingVersion)

// ErrSnapshot marks a snapshot file that cannot be used (missing, of
// another version, truncated or corrupt).
var ErrSnapshot = errors.New("recall snapshot unusable")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshotPath is the snapshot of the index in dir: beside it, so that a
// rebuild swapping the index directory leaves it alone.
func snapshotPath(dir string) string { return filepath.Join(filepath.Dir(dir), snapshotName) }

// SnapshotPath is where the recall snapshot of a set lives ("" when the set
// has no directory).
func SnapshotPath(set *gitstore.Set) string {
	dir := Dir(set)
	if dir == "" {
		return ""
	}
	return snapshotPath(dir)
}

// snapshot is a parsed snapshot file; it implements loader.
type snapshot struct {
	tips          map[string]string
	ndocs, nterms int
	tokens        int
	docs, terms   []byte // the tables
	data          []byte
}

func parseSnapshot(b []byte) (*snapshot, error) {
	if len(b) < snapHeader || string(b[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a snapshot", ErrSnapshot)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrSnapshot, v, snapshotVersion)
	}
	body := b[snapHeader:]
	if n := binary.LittleEndian.Uint32(b[16:]); int(n) != len(body) {
		return nil, fmt.Errorf("%w: truncated (%d of %d bytes)", ErrSnapshot, len(body), n)
	}
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	r := &byteReader{b: body}
	s := &snapshot{tips: map[string]string{}}
	nt := r.uvarint()
	for i := uint64(0); i < nt && r.err == nil; i++ {
		k := r.str()
		s.tips[k] = r.str()
	}
	s.ndocs, s.nterms, s.tokens = int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
	s.docs = r.bytes(s.ndocs * snapDocSize)
	s.terms = r.bytes(s.nterms * snapTermSize)
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, r.err)
	}
	s.data = body[r.off:]
	return s, nil
}

// byteReader reads the variable-length part of a snapshot, remembering the first error.
type byteReader struct {
	b   []byte
	off int
	err error
}

var errShort = errors.New("short data")

func (r *byteReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.off += n
	return v
}

func (r *byteReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = errShort
		return nil
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

func (r *byteReader) str() string { return string(r.bytes(int(r.uvarint()))) }

func u32(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[i:])) }

// span returns data[from:to], or an error when the offsets are out of range.
func (s *snapshot) span(from, to int) ([]byte, error) {
	if from < 0 || to < from || to > len(s.data) {
		return nil, fmt.Errorf("%w: offset out of range", ErrSnapshot)
	}
	return s.data[from:to], nil
}

func (s *snapshot) docKey(doc int) ([]byte, error) {
	e := s.docs[doc*snapDocSize:]
	return s.span(u32(e, 0), u32(e, 4))
}

func (s *snapshot) docLen(doc uint64) int {
	return u32(s.docs, int(doc)*snapDocSize+12)
}

func (s *snapshot) termAt(i int) ([]byte, error) {
	e := s.terms[i*snapTermSize:]
	return s.span(u32(e, 0), u32(e, 4))
}

// findTerm returns the table index of term, -1 when absent.
func (s *snapshot) findTerm(term string) (int, error) {
	var ferr error
	i := sort.Search(s.nterms, func(i int) bool {
		t, err := s.termAt(i)
		if err != nil {
			ferr = err
			return true
		}
		return string(t) >= term
	})
	if ferr != nil {
		return -1, ferr
	}
	if i < s.nterms {
		if t, _ := s.termAt(i); string(t) == term {
			return i, nil
		}
	}
	return -1, nil
}

func (s *snapshot) docCount() int { return s.ndocs }

func (s *snapshot) avgLen() float64 {
	if s.ndocs == 0 {
		return 1
	}
	return float64(s.tokens) / float64(s.ndocs)
}

func (s *snapshot) df(term string) (int, error) {
	i, err := s.findTerm(term)
	if i < 0 {
		return 0, err
	}
	return u32(s.terms, i*snapTermSize+8), nil
}

func (s *snapshot) postings(term string, fn func(doc uint64, tf, dl int)) error {
	i, err := s.findTerm(term)
	if i < 0 {
		return err
	}
	e := s.terms[i*snapTermSize:]
	df := u32(e, 8)
	r := &byteReader{b: s.data, off: u32(e, 4)}
	if r.off > len(s.data) {
		return fmt.Errorf("%w: postings of %q out of range", ErrSnapshot, term)
	}
	doc := uint64(0)
	for k := 0; k < df; k++ {
		doc += r.uvarint()
		tf := r.uvarint()
		if r.err != nil || doc >= uint64(s.ndocs) {
			return fmt.Errorf("%w: postings of %q", ErrSnapshot, term)
		}
		fn(doc, int(tf), s.docLen(doc))
	}
	return nil
}

func (s *snapshot) postingsAmong(term string, _ []uint64, fn func(doc uint64, tf, dl int)) error {
	return s.postings(term, fn)
}

func (s *snapshot) external(doc uint64) (string, error) {
	if doc >= uint64(s.ndocs) {
		return "", fmt.Errorf("%w: no document %d", ErrSnapshot, doc)
	}
	k, err := s.docKey(int(doc))
	return string(k), err
}

func (s *snapshot) load(key string) (*entry, error) {
	var ferr error
	i := sort.Search(s.ndocs, func(i int) bool {
		k, err := s.docKey(i)
		if err != nil {
			ferr = err
			return true
		}
		return string(k) >= key
	})
	if ferr != nil {
		return nil, ferr
	}
	if i == s.ndocs {
		return nil, fmt.Errorf("%w: document %s is missing", ErrSnapshot, key)
	}
	if k, _ := s.docKey(i); string(k) != key {
		return nil, fmt.Errorf("%w: document %s is missing", ErrSnapshot, key)
	}
	e := s.docs[i*snapDocSize:]
	raw, err := s.span(u32(e, 4), u32(e, 4)+u32(e, 8))
	if err != nil {
		return nil, err
	}
	m, err := gitstore.DecodeMemory(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: document %s: %v", ErrSnapshot, key, err)
	}
	return &entry{key: key, scope: scopeOfKey(key), m: m}, nil
}

// snapDoc is one document while a snapshot is being built.
type snapDoc struct {
	raw []byte // canonical JSON
	n   int    // number of terms, repeats included
	tf  map[string]int
}

func newSnapDoc(m *gitstore.Memory) (*snapDoc, error) {
	raw, err := m.Encode()
	if err != nil {
		return nil, err
	}
	terms := docTerms(m, analyzer{})
	d := &snapDoc{raw: raw, n: len(terms), tf: make(map[string]int, len(terms))}
	for _, t := range terms {
		d.tf[t]++
	}
	return d, nil
}

// docsOf turns a parsed snapshot back into documents by key, to be changed
// and written again.
func (s *snapshot) docsOf() (map[string]*snapDoc, error) {
	docs := make([]*snapDoc, s.ndocs)
	byKey := make(map[string]*snapDoc, s.ndocs)
	for i := range docs {
		e := s.docs[i*snapDocSize:]
		k, err := s.docKey(i)
		if err != nil {
			return nil, err
		}
		raw, err := s.span(u32(e, 4), u32(e, 4)+u32(e, 8))
		if err != nil {
			return nil, err
		}
		docs[i] = &snapDoc{raw: raw, n: u32(e, 16), tf: map[string]int{}}
		byKey[string(k)] = docs[i]
	}
	for i := 0; i < s.nterms; i++ {
		t, err := s.termAt(i)
		if err != nil {
			return nil, err
		}
		term := string(t)
		if err := s.postings(term, func(doc uint64, tf, _ int) { docs[doc].tf[term] = tf }); err != nil {
			return nil, err
		}
	}
	return byKey, nil
}

// encodeSnapshot writes documents by key as a snapshot reflecting tips.
func encodeSnapshot(tips map[string]string, docs map[string]*snapDoc) []byte {
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type post struct{ doc, tf int }
	postings := map[string][]post{}
	tokens := 0
	var data bytes.Buffer
	docTable := make([]byte, 0, len(keys)*snapDocSize)
	for i, k := range keys {
		d := docs[k]
		tokens += d.n
		keyOff := data.Len()
		data.WriteString(k)
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(keyOff))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(data.Len()))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(len(d.raw)))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(normLen(lenAsNorm(d.n))))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(d.n))
		data.Write(d.raw)
		for t, tf := range d.tf {
			postings[t] = append(postings[t], post{i, tf})
		}
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	termTable := make([]byte, 0, len(terms)*snapTermSize)
	var buf []byte
	for _, t := range terms {
		ps := postings[t]
		sort.Slice(ps, func(a, b int) bool { return ps[a].doc < ps[b].doc })
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(data.Len()))
		data.WriteString(t)
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(data.Len()))
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(len(ps)))
		prev := 0
		buf = buf[:0]
		for _, p := range ps {
			buf = binary.AppendUvarint(buf, uint64(p.doc-prev))
			buf = binary.AppendUvarint(buf, uint64(p.tf))
			prev = p.doc
		}
		data.Write(buf)
	}
	var body []byte
	tipKeys := make([]string, 0, len(tips))
	for k := range tips {
		tipKeys = append(tipKeys, k)
	}
	sort.Strings(tipKeys)
	body = binary.AppendUvarint(body, uint64(len(tipKeys)))
	for _, k := range tipKeys {
		body = binary.AppendUvarint(body, uint64(len(k)))
		body = append(body, k...)
		body = binary.AppendUvarint(body, uint64(len(tips[k])))
		body = append(body, tips[k]...)
	}
	body = binary.AppendUvarint(body, uint64(len(keys)))
	body = binary.AppendUvarint(body, uint64(len(terms)))
	body = binary.AppendUvarint(body, uint64(tokens))
	body = append(append(append(body, docTable...), termTable...), data.Bytes()...)
	out := make([]byte, snapHeader, snapHeader+len(body))
	copy(out, snapshotMagic)
	binary.LittleEndian.PutUint32(out[8:], snapshotVersion)
	binary.LittleEndian.PutUint32(out[12:], crc32.Checksum(body, castagnoli))
	binary.LittleEndian.PutUint32(out[16:], uint32(len(body)))
	return append(out, body...)
}

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
	var old *snapshot
	if data, err := os.ReadFile(path); err == nil {
		if old, err = parseSnapshot(data); err == nil && SameTips(old.tips, tips) {
			return old, nil
		}
	}
	var docs map[string]*snapDoc
	if old != nil {
		if docs, err = old.docsOf(); err != nil {
			old = nil
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
	snap, err := parseSnapshot(data)
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
	_, err := syncSnapshot(ctx, snapshotPath(dir), set.Stores())
	return err
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
