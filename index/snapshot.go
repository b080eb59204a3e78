package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// The snapshot is a second, compact cache of the index: one file holding
// what ranking needs (per-term postings, document lengths, the memories'
// canonical JSON), laid out so that a recall reads only the header, the
// tables and the postings of its own terms, and the JSON of the memories it
// returns. It lets a process that links no engine (the hook binary) rank
// exactly like the bleve index and the scan (it is the same corpus: same
// terms, same quantized lengths, same counts) without reading every blob of
// a store. It records the ref tips it reflects and is brought forward by
// tree diffs in plain Go, atomically replaced (temp file and rename) each
// time; deleting it is always safe.
//
// Layout (integers little-endian; offsets from the start of the file):
//
//	0   magic "GMSNAP\x00\n"
//	8   u32 version (snapshotFormat*1000 + MappingVersion)
//	12  u32 CRC-32C of bytes 16-64 and of the tables
//	16  u64 file length
//	24  u32 documents, u32 terms, u64 total term count, u32 tables length
//	64  tables:
//	    uvarint number of tips, then per tip: uvarint-prefixed store key and commit
//	    documents, 24 bytes each, ascending by key: u64 offset of the key
//	      (the JSON follows it), u32 key length, u32 JSON length,
//	      u32 CRC-32C of key and JSON, u32 length as scoring reads it
//	      (quantized like bleve's norm)
//	    terms, 28 bytes each, ascending: u32 offset in the term strings,
//	      u32 term length, u64 offset of the postings, u32 postings length,
//	      u32 document frequency, u32 CRC-32C of the postings
//	    term strings
//	    then keys with JSON, and postings (uvarint document delta, uvarint frequency)
//
// The header and tables are checked as a whole when the file is opened, the
// file's length against the header (truncation), and each memory and
// postings list by its own checksum when it is read. A missing, truncated,
// corrupt or other-version snapshot is rebuilt from the stores; one whose
// tips differ from the refs is brought forward first, so it never answers
// for another state of the stores.
const (
	snapshotMagic  = "GMSNAP\x00\n"
	snapshotFormat = 2
	snapshotName   = "recall.snapshot"
	snapHeader     = 64
	snapDocSize    = 24
	snapTermSize   = 28
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

// snapshot is an open snapshot file (or one just encoded in memory); it
// implements loader.
type snapshot struct {
	r             io.ReaderAt
	closer        io.Closer // the file, when r is one
	size          int64
	tips          map[string]string
	ndocs, nterms int
	tokens        int
	docs, terms   []byte // the tables
	strs          []byte // term strings
	// seen holds the JSON of the documents external found, by key: ranking
	// loads exactly those, so load does not search the file
	seen map[string][]byte
}

// openSnapshot opens the snapshot at path and checks its header and tables.
func openSnapshot(path string) (*snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s, err := readSnapshot(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer = f
	return s, nil
}

func (s *snapshot) close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

func readSnapshot(r io.ReaderAt, size int64) (*snapshot, error) {
	head := make([]byte, snapHeader)
	if _, err := r.ReadAt(head, 0); err != nil || string(head[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a snapshot", ErrSnapshot)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrSnapshot, v, snapshotVersion)
	}
	if n := binary.LittleEndian.Uint64(head[16:]); int64(n) != size {
		return nil, fmt.Errorf("%w: %d bytes, the header says %d (truncated?)", ErrSnapshot, size, n)
	}
	tlen := int64(binary.LittleEndian.Uint32(head[40:]))
	if snapHeader+tlen > size {
		return nil, fmt.Errorf("%w: tables past the end", ErrSnapshot)
	}
	tables := make([]byte, tlen)
	if _, err := r.ReadAt(tables, snapHeader); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	crc := crc32.Update(crc32.Checksum(head[16:], castagnoli), castagnoli, tables)
	if crc != binary.LittleEndian.Uint32(head[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	s := &snapshot{r: r, size: size, tips: map[string]string{},
		ndocs: int(binary.LittleEndian.Uint32(head[24:])), nterms: int(binary.LittleEndian.Uint32(head[28:])),
		tokens: int(binary.LittleEndian.Uint64(head[32:]))}
	br := &byteReader{b: tables}
	nt := br.uvarint()
	for i := uint64(0); i < nt && br.err == nil; i++ {
		k := br.str()
		s.tips[k] = br.str()
	}
	s.docs = br.bytes(s.ndocs * snapDocSize)
	s.terms = br.bytes(s.nterms * snapTermSize)
	if br.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, br.err)
	}
	s.strs = tables[br.off:]
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

// read reads n bytes at off and checks them against crc.
func (s *snapshot) read(off int64, n int, crc uint32) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > s.size {
		return nil, fmt.Errorf("%w: offset out of range", ErrSnapshot)
	}
	b := make([]byte, n)
	if _, err := s.r.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if crc32.Checksum(b, castagnoli) != crc {
		return nil, fmt.Errorf("%w: checksum mismatch at %d", ErrSnapshot, off)
	}
	return b, nil
}

// doc reads a document's key and JSON.
func (s *snapshot) doc(i int) (key string, raw []byte, err error) {
	e := s.docs[i*snapDocSize:]
	klen := u32(e, 8)
	b, err := s.read(int64(binary.LittleEndian.Uint64(e)), klen+u32(e, 12), binary.LittleEndian.Uint32(e[16:]))
	if err != nil {
		return "", nil, err
	}
	return string(b[:klen]), b[klen:], nil
}

func (s *snapshot) docLen(doc uint64) int { return u32(s.docs, int(doc)*snapDocSize+20) }

func (s *snapshot) termAt(i int) (string, error) {
	e := s.terms[i*snapTermSize:]
	off, n := u32(e, 0), u32(e, 4)
	if off+n > len(s.strs) {
		return "", fmt.Errorf("%w: term %d out of range", ErrSnapshot, i)
	}
	return string(s.strs[off : off+n]), nil
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
		return t >= term
	})
	if ferr != nil {
		return -1, ferr
	}
	if i < s.nterms {
		if t, _ := s.termAt(i); t == term {
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
	return u32(s.terms, i*snapTermSize+20), nil
}

func (s *snapshot) postings(term string, fn func(doc uint64, tf, dl int)) error {
	i, err := s.findTerm(term)
	if i < 0 {
		return err
	}
	return s.postingsAt(i, func(doc uint64, tf int) { fn(doc, tf, s.docLen(doc)) })
}

func (s *snapshot) postingsAt(i int, fn func(doc uint64, tf int)) error {
	e := s.terms[i*snapTermSize:]
	b, err := s.read(int64(binary.LittleEndian.Uint64(e[8:])), u32(e, 16), binary.LittleEndian.Uint32(e[24:]))
	if err != nil {
		return err
	}
	r := &byteReader{b: b}
	doc := uint64(0)
	for k, df := 0, u32(e, 20); k < df; k++ {
		doc += r.uvarint()
		tf := r.uvarint()
		if r.err != nil || doc >= uint64(s.ndocs) {
			return fmt.Errorf("%w: postings %d", ErrSnapshot, i)
		}
		fn(doc, int(tf))
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
	k, raw, err := s.doc(int(doc))
	if err == nil {
		if s.seen == nil {
			s.seen = map[string][]byte{}
		}
		s.seen[k] = raw
	}
	return k, err
}

func (s *snapshot) load(key string) (*entry, error) {
	if raw, ok := s.seen[key]; ok {
		return s.decode(key, raw)
	}
	var ferr error
	var raw []byte
	i := sort.Search(s.ndocs, func(i int) bool {
		k, r, err := s.doc(i)
		if err != nil {
			ferr = err
			return true
		}
		if k == key {
			raw = r
		}
		return k >= key
	})
	if ferr != nil {
		return nil, ferr
	}
	if i == s.ndocs || raw == nil {
		return nil, fmt.Errorf("%w: document %s is missing", ErrSnapshot, key)
	}
	return s.decode(key, raw)
}

func (s *snapshot) decode(key string, raw []byte) (*entry, error) {
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

// docsOf turns a snapshot back into documents by key, to be changed and
// written again.
func (s *snapshot) docsOf() (map[string]*snapDoc, error) {
	docs := make([]*snapDoc, s.ndocs)
	byKey := make(map[string]*snapDoc, s.ndocs)
	for i := range docs {
		k, raw, err := s.doc(i)
		if err != nil {
			return nil, err
		}
		docs[i] = &snapDoc{raw: raw, tf: map[string]int{}}
		byKey[k] = docs[i]
	}
	for i := 0; i < s.nterms; i++ {
		term, err := s.termAt(i)
		if err != nil {
			return nil, err
		}
		if err := s.postingsAt(i, func(doc uint64, tf int) { docs[doc].tf[term] = tf; docs[doc].n += tf }); err != nil {
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
	for i, k := range keys {
		d := docs[k]
		tokens += d.n
		for t, tf := range d.tf {
			postings[t] = append(postings[t], post{i, tf})
		}
	}
	terms := make([]string, 0, len(postings))
	strsLen := 0
	for t := range postings {
		terms = append(terms, t)
		strsLen += len(t)
	}
	sort.Strings(terms)

	var tips0 []byte
	tipKeys := make([]string, 0, len(tips))
	for k := range tips {
		tipKeys = append(tipKeys, k)
	}
	sort.Strings(tipKeys)
	tips0 = binary.AppendUvarint(tips0, uint64(len(tipKeys)))
	for _, k := range tipKeys {
		tips0 = binary.AppendUvarint(tips0, uint64(len(k)))
		tips0 = append(tips0, k...)
		tips0 = binary.AppendUvarint(tips0, uint64(len(tips[k])))
		tips0 = append(tips0, tips[k]...)
	}
	tlen := len(tips0) + len(keys)*snapDocSize + len(terms)*snapTermSize + strsLen
	dataStart := int64(snapHeader + tlen)

	// the data: keys with JSON, then postings
	var data []byte
	docTable := make([]byte, 0, len(keys)*snapDocSize)
	for _, k := range keys {
		d := docs[k]
		off := len(data)
		data = append(append(data, k...), d.raw...)
		docTable = binary.LittleEndian.AppendUint64(docTable, uint64(dataStart+int64(off)))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(len(k)))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(len(d.raw)))
		docTable = binary.LittleEndian.AppendUint32(docTable, crc32.Checksum(data[off:], castagnoli))
		docTable = binary.LittleEndian.AppendUint32(docTable, uint32(normLen(lenAsNorm(d.n))))
	}
	termTable := make([]byte, 0, len(terms)*snapTermSize)
	strs := make([]byte, 0, strsLen)
	for _, t := range terms {
		ps := postings[t]
		sort.Slice(ps, func(a, b int) bool { return ps[a].doc < ps[b].doc })
		off := len(data)
		prev := 0
		for _, p := range ps {
			data = binary.AppendUvarint(data, uint64(p.doc-prev))
			data = binary.AppendUvarint(data, uint64(p.tf))
			prev = p.doc
		}
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(len(strs)))
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(len(t)))
		termTable = binary.LittleEndian.AppendUint64(termTable, uint64(dataStart+int64(off)))
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(len(data)-off))
		termTable = binary.LittleEndian.AppendUint32(termTable, uint32(len(ps)))
		termTable = binary.LittleEndian.AppendUint32(termTable, crc32.Checksum(data[off:], castagnoli))
		strs = append(strs, t...)
	}
	out := make([]byte, snapHeader, int(dataStart)+len(data))
	copy(out, snapshotMagic)
	binary.LittleEndian.PutUint32(out[8:], snapshotVersion)
	binary.LittleEndian.PutUint64(out[16:], uint64(int(dataStart)+len(data)))
	binary.LittleEndian.PutUint32(out[24:], uint32(len(keys)))
	binary.LittleEndian.PutUint32(out[28:], uint32(len(terms)))
	binary.LittleEndian.PutUint64(out[32:], uint64(tokens))
	binary.LittleEndian.PutUint32(out[40:], uint32(tlen))
	out = append(append(append(append(out, tips0...), docTable...), termTable...), strs...)
	binary.LittleEndian.PutUint32(out[12:], crc32.Update(crc32.Checksum(out[16:snapHeader], castagnoli), castagnoli, out[snapHeader:]))
	return append(out, data...)
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
