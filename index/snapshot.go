package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
)

// The snapshot is a second, compact cache of the index: one file holding
// what ranking needs (per-term postings with document lengths, the
// memories' canonical JSON), laid out so that a recall reads only the
// header, a small table of contents, the dictionary blocks and postings of
// its own terms, and the JSON of the memories it returns. It lets a process
// that links no engine (the hook binary) rank exactly like the bleve index
// and the scan (the same corpus: same terms, same quantized lengths, same
// counts) without reading every blob of a store. It records the ref tips it
// reflects and is brought forward by tree diffs in plain Go (snapsync.go),
// atomically replaced each time; deleting it is always safe.
//
// Layout (integers little-endian, offsets from the start of the file):
//
//	0   magic "GMSNAP\x00\n"
//	8   u32 version (snapshotFormat*1000 + MappingVersion)
//	12  u32 CRC-32 of bytes 16-64 and of the table of contents
//	16  u64 file length
//	24  u32 documents, u32 terms, u64 total term count
//	40  u64 offset and u32 length of the table of contents, u64 offset of the document table
//	60  u32 CRC-32C of the thesaurus, whose phrases are part of the analysis
//	64  data: each document's key followed by its JSON; each term's postings
//	    (uvarint document delta, frequency and length as scoring reads it,
//	    quantized like bleve's norm)
//	    document table, 20 bytes a document, ascending by key: u64 offset,
//	    u32 key length, u32 JSON length, u32 CRC-32 of key and JSON
//	    dictionary blocks of snapBlock terms, ascending: per term uvarint
//	    length and the term, uvarint postings offset, length, document
//	    frequency and CRC-32
//	    summary table, a document after another in the document table's
//	    order: key, type, creation and end of validity (Unix seconds, 0:
//	    none), what list and stats read instead of decoding every memory
//	    table of contents: uvarint-counted tips (store key, commit); the
//	    CRC-32 of each block of snapBlock documents of the table; uvarint-
//	    counted dictionary blocks (offset, length, CRC-32, first term); the
//	    summary table's offset, length and CRC-32
//
// The header and the table of contents are checked when the file is
// opened, the file's length against the header (truncation), and every
// block, memory and postings list against its own checksum when it is
// read. A missing, truncated, corrupt or other-version snapshot is rebuilt
// from the stores; one whose tips differ from the refs is brought forward
// first, so it never answers for another state of the stores.
const (
	snapshotMagic  = "GMSNAP\x00\n"
	snapshotFormat = 5
	snapHeader     = 64
	snapDocSize    = 20
	snapBlock      = 64
)

var snapshotVersion = uint32(snapshotFormat*1000 + MappingVersion)

// ErrSnapshot marks a snapshot file that cannot be used (missing, of
// another version, truncated or corrupt).
var ErrSnapshot = errors.New("recall snapshot unusable")

// snapCRC is the snapshot's and the delta's checksum: CRC-32 (IEEE), whose
// tables a process sets up in microseconds; CRC-32C's take about 0.2 ms,
// paid by every hook before it reads a byte.
var snapCRC = crc32.IEEETable

// postingsBuffers hold the bytes of a postings list while it is decoded.
var postingsBuffers = sync.Pool{New: func() any { return new([]byte) }}

// SnapshotPath is where the recall snapshot of a set lives
// (gitstore.MemDir.Snapshot; "" when the set has no directory).
func SnapshotPath(set *gitstore.Set) string {
	switch {
	case set == nil:
		return ""
	case set.Repo != nil:
		return set.Repo.Mem().Snapshot()
	case set.Personal != nil:
		return set.Personal.Mem().Snapshot()
	}
	return ""
}

// snapshot is an open snapshot file (or one just encoded in memory); it
// implements loader.
type snapshot struct {
	r      io.ReaderAt
	mapped []byte // the file's content, when mapped (Access.Map)
	// pieces reads documents and their table from a mapped file by the
	// piece: they lie scattered, and each would cost a fault on a page of
	// the map of its own, where a read costs a call and fills a slab
	pieces io.ReaderAt
	slab   []byte
	closer io.Closer   // the file, when r is one
	file   os.FileInfo // of the file, when r is one
	size   int64
	crc    uint32 // the header's checksum: which base a delta extends
	tips   map[string]string
	ndocs  int
	nterms int
	tokens int
	docOff int64
	docCRC []uint32
	blocks []termBlock
	sumOff int64
	sumLen int
	sumCRC uint32
	// caches of what was read and checked
	sums       []docSum
	sumTable   []byte // the summary table, once read and checked
	unmapSums  func() // unmaps sumTable, when it is a map of its own
	docBlocks  map[int][]byte
	dictBlocks map[int][]byte
	termInfos  map[string]termInfo
	seen       map[string][]byte // JSON by key of the documents external found
}

type termBlock struct {
	first string
	off   int64
	n     int
	crc   uint32
}

type termInfo struct {
	off    int64
	n, df  int
	crc    uint32
	exists bool
}

// openSnapshot opens the snapshot at path and checks its header and table
// of contents; mapped reads its dictionary and postings through a memory
// map (Access.Map).
//
// A mapped snapshot reads its dictionary and postings through a read-only
// memory map that is never unmapped, where the system has them: what a
// recall reads is then the page cache's own memory, where reading it copied
// each postings list into memory the process touched first. Documents and
// their table are still read by the piece, from the file kept open: the few
// a recall loads lie scattered over the file, a page of the map each, and
// where the first touch of a page costs more than a read call they made a
// session start at 100,000 memories about a tenth slower. The maps last as
// long as the process, and the slices recall keeps point into them, so only
// a process that exits within seconds maps: a hook's, and git mem add's
// (whose duplicate check reads a common word's whole postings list). A
// snapshot is replaced by renaming a new file over it, never rewritten in
// place, so neither a map nor the open file changes under its reader; one
// truncated by another program faults, which its readers turn into an error
// (faultsAsErrors, or the hooks' own recovery).
func openSnapshot(path string, mapped bool) (*snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if mapped && st.Size() > 0 {
		if data, err := mapFile(f, st.Size()); err == nil {
			s, err := readSnapshot(bytes.NewReader(data), st.Size())
			if err != nil {
				f.Close()
				return nil, err
			}
			s.mapped, s.pieces, s.closer, s.file = data, f, f, st
			return s, nil
		}
	}
	s, err := readSnapshot(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer, s.file = f, st
	return s, nil
}

func (s *snapshot) close() {
	s.dropSummaries()
	if s.closer != nil {
		s.closer.Close()
	}
}

// dropSummaries lets go of the summary table read and its summaries.
func (s *snapshot) dropSummaries() {
	if s.unmapSums != nil {
		s.unmapSums()
		s.unmapSums = nil
	}
	s.sumTable, s.sums = nil, nil
}

func readSnapshot(r io.ReaderAt, size int64) (*snapshot, error) {
	head := make([]byte, snapHeader)
	if _, err := r.ReadAt(head, 0); err != nil || string(head[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a snapshot", ErrSnapshot)
	}
	le := binary.LittleEndian
	if v := le.Uint32(head[8:]); v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrSnapshot, v, snapshotVersion)
	}
	if le.Uint32(head[60:]) != AnalysisPrint() {
		return nil, fmt.Errorf("%w: written with another thesaurus", ErrSnapshot)
	}
	if n := le.Uint64(head[16:]); int64(n) != size {
		return nil, fmt.Errorf("%w: %d bytes, the header says %d (truncated?)", ErrSnapshot, size, n)
	}
	tocOff, tocLen := int64(le.Uint64(head[40:])), int64(le.Uint32(head[48:]))
	if tocOff < snapHeader || tocOff+tocLen > size {
		return nil, fmt.Errorf("%w: table of contents out of range", ErrSnapshot)
	}
	toc := make([]byte, tocLen)
	if _, err := r.ReadAt(toc, tocOff); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if crc32.Update(crc32.Checksum(head[16:], snapCRC), snapCRC, toc) != le.Uint32(head[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	s := &snapshot{r: r, size: size, crc: le.Uint32(head[12:]), tips: map[string]string{},
		ndocs: int(le.Uint32(head[24:])), nterms: int(le.Uint32(head[28:])),
		tokens: int(le.Uint64(head[32:])), docOff: int64(le.Uint64(head[52:]))}
	br := &byteReader{b: toc}
	for i, n := 0, br.uvarint(); uint64(i) < n && br.err == nil; i++ {
		k := recordedStoreKey(br.str())
		s.tips[k] = br.str()
	}
	// the tables are made at their size: at 100,000 memories, growing them
	// touched twice the memory, and a page first touched costs a new
	// process more than reading it
	nblocks := (s.ndocs + snapBlock - 1) / snapBlock
	if nblocks > len(toc) { // each checksum takes a byte of the table at least
		return nil, fmt.Errorf("%w: bad table of contents", ErrSnapshot)
	}
	s.docCRC = make([]uint32, 0, nblocks)
	for range nblocks {
		s.docCRC = append(s.docCRC, uint32(br.uvarint()))
	}
	n := br.uvarint()
	if n > uint64(len(toc)) { // each block takes bytes of the table
		return nil, fmt.Errorf("%w: bad table of contents", ErrSnapshot)
	}
	s.blocks = make([]termBlock, 0, n)
	for i := uint64(0); i < n && br.err == nil; i++ {
		b := termBlock{off: int64(br.uvarint()), n: int(br.uvarint()), crc: uint32(br.uvarint())}
		b.first = br.str()
		s.blocks = append(s.blocks, b)
	}
	s.sumOff, s.sumLen, s.sumCRC = int64(br.uvarint()), int(br.uvarint()), uint32(br.uvarint())
	if br.err != nil || s.docOff < snapHeader || s.docOff+int64(s.ndocs*snapDocSize) > size || s.sumOff+int64(s.sumLen) > size {
		return nil, fmt.Errorf("%w: bad table of contents", ErrSnapshot)
	}
	return s, nil
}

// byteReader reads uvarint-encoded data, remembering the first error.
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

// read reads n bytes at off and checks them against crc.
func (s *snapshot) read(off int64, n int, crc uint32) ([]byte, error) {
	return s.readInto(nil, off, n, crc)
}

// readInto is read into buf's memory when it has room; from a mapped
// file, it is the map's memory, which is read-only.
func (s *snapshot) readInto(buf []byte, off int64, n int, crc uint32) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > s.size {
		return nil, fmt.Errorf("%w: offset out of range", ErrSnapshot)
	}
	var b []byte
	if s.mapped != nil {
		b = s.mapped[off : off+int64(n) : off+int64(n)]
	} else {
		b = buf[:0]
		if cap(b) < n {
			b = make([]byte, n)
		}
		b = b[:n]
		if _, err := s.r.ReadAt(b, off); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
	}
	if crc32.Checksum(b, snapCRC) != crc {
		return nil, fmt.Errorf("%w: checksum mismatch at %d", ErrSnapshot, off)
	}
	return b, nil
}

// pieceSlab is the size of the slabs pieces are read into.
const pieceSlab = 32 << 10

// readPiece reads a small piece its callers keep (a document, a block of
// the document table): from a mapped file by a read call into the current
// slab, else as read does.
func (s *snapshot) readPiece(off int64, n int, crc uint32) ([]byte, error) {
	if s.pieces == nil {
		return s.read(off, n, crc)
	}
	if off < 0 || n < 0 || off+int64(n) > s.size {
		return nil, fmt.Errorf("%w: offset out of range", ErrSnapshot)
	}
	if len(s.slab)+n > cap(s.slab) {
		s.slab = make([]byte, 0, max(pieceSlab, n))
	}
	b := s.slab[len(s.slab) : len(s.slab)+n : len(s.slab)+n]
	if _, err := s.pieces.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if crc32.Checksum(b, snapCRC) != crc {
		return nil, fmt.Errorf("%w: checksum mismatch at %d", ErrSnapshot, off)
	}
	s.slab = s.slab[:len(s.slab)+n]
	return b, nil
}

// doc reads a document's key and JSON.
func (s *snapshot) doc(i int) (key string, raw []byte, err error) {
	if i < 0 || i >= s.ndocs {
		return "", nil, fmt.Errorf("%w: no document %d", ErrSnapshot, i)
	}
	bi := i / snapBlock
	blk, ok := s.docBlocks[bi]
	if !ok {
		n := min(snapBlock, s.ndocs-bi*snapBlock)
		if blk, err = s.readPiece(s.docOff+int64(bi*snapBlock*snapDocSize), n*snapDocSize, s.docCRC[bi]); err != nil {
			return "", nil, err
		}
		if s.docBlocks == nil {
			s.docBlocks = map[int][]byte{}
		}
		s.docBlocks[bi] = blk
	}
	e := blk[(i%snapBlock)*snapDocSize:]
	le := binary.LittleEndian
	klen := int(le.Uint32(e[8:]))
	b, err := s.readPiece(int64(le.Uint64(e)), klen+int(le.Uint32(e[12:])), le.Uint32(e[16:]))
	if err != nil {
		return "", nil, err
	}
	return string(b[:klen]), b[klen:], nil
}

// eachTerm calls fn for every term of dictionary block bi; the term's
// bytes are the block's, valid during the call (a lookup compares them
// without making a string of each). keep keeps the checked block for the
// next lookup in it: a query's terms, expanded, fall in a few blocks (at
// 10,000 memories a prompt's 69 lookups in 5), each read and checksummed
// once rather than at every lookup; a pass over every block keeps none.
func (s *snapshot) eachTerm(bi int, keep bool, fn func(term []byte, ti termInfo) bool) error {
	data, ok := s.dictBlocks[bi]
	if !ok {
		b := s.blocks[bi]
		var err error
		if data, err = s.read(b.off, b.n, b.crc); err != nil {
			return err
		}
		if keep {
			if s.dictBlocks == nil {
				s.dictBlocks = map[int][]byte{}
			}
			s.dictBlocks[bi] = data
		}
	}
	r := &byteReader{b: data}
	for r.off < len(data) && r.err == nil {
		t := r.bytes(int(r.uvarint()))
		ti := termInfo{off: int64(r.uvarint()), n: int(r.uvarint()), df: int(r.uvarint()), crc: uint32(r.uvarint()), exists: true}
		if r.err == nil && !fn(t, ti) {
			return nil
		}
	}
	if r.err != nil {
		return fmt.Errorf("%w: dictionary block %d", ErrSnapshot, bi)
	}
	return nil
}

// findTerm looks a term up in its dictionary block.
func (s *snapshot) findTerm(term string) (termInfo, error) {
	if ti, ok := s.termInfos[term]; ok {
		return ti, nil
	}
	var found termInfo
	bi := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].first > term }) - 1
	if bi >= 0 {
		err := s.eachTerm(bi, true, func(t []byte, ti termInfo) bool {
			if string(t) == term {
				found = ti
			}
			return string(t) < term
		})
		if err != nil {
			return termInfo{}, err
		}
	}
	if s.termInfos == nil {
		s.termInfos = map[string]termInfo{}
	}
	s.termInfos[term] = found
	return found, nil
}

func (s *snapshot) docCount() int { return s.ndocs }

func (s *snapshot) avgLen() float64 {
	if s.ndocs == 0 {
		return 1
	}
	return float64(s.tokens) / float64(s.ndocs)
}

func (s *snapshot) df(term string) (int, error) {
	ti, err := s.findTerm(term)
	return ti.df, err
}

func (s *snapshot) postings(term string, fn func(doc uint64, tf, dl int)) error {
	ti, err := s.findTerm(term)
	if err != nil || !ti.exists {
		return err
	}
	return s.postingsOf(ti, fn)
}

// postingsAmong calls fn for the documents of docs (ascending) that
// contain term. The list is still decoded from its start, but a document
// is compared with the next of docs rather than handed to fn, and decoding
// stops past the last of them: scoring asks this of a common word once its
// candidates are few, and at 100,000 memories such a word's list runs to
// tens of thousands of documents.
func (s *snapshot) postingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error {
	ti, err := s.findTerm(term)
	if err != nil || !ti.exists || len(docs) == 0 {
		return err
	}
	return s.postingsListed(ti, docs, fn)
}

func (s *snapshot) postingsOf(ti termInfo, fn func(doc uint64, tf, dl int)) error {
	return s.postingsListed(ti, nil, fn)
}

// postingsListed calls fn for the postings of ti: all of them when among is
// nil, else those of the documents of among (ascending).
func (s *snapshot) postingsListed(ti termInfo, among []uint64, fn func(doc uint64, tf, dl int)) error {
	// the lists of a query are decoded one after the other, into one buffer:
	// a hook's new memory costs more than the decoding
	bp := postingsBuffers.Get().(*[]byte)
	defer postingsBuffers.Put(bp)
	b, err := s.readInto(*bp, ti.off, ti.n, ti.crc)
	if err != nil {
		return err
	}
	if s.mapped == nil {
		*bp = b // a mapped list is the map's, read-only
	}
	// each posting is three uvarints (the gap to the document, the term's
	// count, the document's length), most of them one byte: decoded here
	// without a call per number, which recall at 100,000 memories makes
	// hundreds of thousands of times
	doc, off := uint64(0), 0
	for k := 0; k < ti.df; k++ {
		var v [3]uint64
		for j := range v {
			if off < len(b) && b[off] < 0x80 {
				v[j] = uint64(b[off])
				off++
				continue
			}
			x, n := binary.Uvarint(b[off:])
			if n <= 0 {
				return fmt.Errorf("%w: postings at %d", ErrSnapshot, ti.off)
			}
			v[j] = x
			off += n
		}
		doc += v[0]
		if doc >= uint64(s.ndocs) {
			return fmt.Errorf("%w: postings at %d", ErrSnapshot, ti.off)
		}
		if among != nil {
			for len(among) > 0 && among[0] < doc {
				among = among[1:]
			}
			if len(among) == 0 {
				return nil // past the last document asked about
			}
			if among[0] != doc {
				continue
			}
		}
		fn(doc, int(v[1]), int(v[2]))
	}
	return nil
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

// load returns a memory by key: ranking loads the documents external
// found, so they come from its cache; others are searched for.
func (s *snapshot) load(key string) (*entry, error) {
	raw, ok := s.seen[key]
	if !ok {
		var err error
		if _, raw, err = s.find(key); err != nil {
			return nil, err
		}
		if raw == nil {
			return nil, fmt.Errorf("%w: %w: %s", ErrSnapshot, ErrNoDocument, key)
		}
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
	tf  termFreqs
	sum docSum
}

func newSnapDoc(m *gitstore.Memory, in interner) (*snapDoc, error) {
	raw, err := m.Encode()
	if err != nil {
		return nil, err
	}
	return analyzedDoc(m, raw, in), nil
}

// analyzedDoc is a memory with its canonical JSON raw, analyzed; in, when
// not nil, shares the term strings between documents.
func analyzedDoc(m *gitstore.Memory, raw []byte, in interner) *snapDoc {
	terms := docTerms(m, analyzer{})
	return &snapDoc{raw: raw, n: len(terms), tf: countTerms(terms, in), sum: sumOf("", m)}
}

// termFreq is a term of a document and how often it occurs there.
type termFreq struct {
	term string
	n    int32
}

// termFreqs are a document's distinct terms in ascending order with their
// counts: a slice, not a map, as a rebuild holds one per memory.
type termFreqs []termFreq

// countTerms counts terms (it sorts them in place).
func countTerms(terms []string, in interner) termFreqs {
	sort.Strings(terms)
	var out termFreqs
	for i, t := range terms {
		if i > 0 && t == terms[i-1] {
			out[len(out)-1].n++
			continue
		}
		out = append(out, termFreq{in.of(t), 1})
	}
	return slices.Clip(out)
}

func compareTermFreq(a, b termFreq) int { return strings.Compare(a.term, b.term) }

// interner shares equal term strings while a snapshot is built, so that
// 100,000 memories do not each hold their own copy of common words.
type interner map[string]string

func (in interner) of(s string) string {
	if in == nil {
		return s
	}
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// post is one posting while a snapshot is written: document number, term
// frequency and document length as scoring reads it.
type post struct{ doc, tf, dl int32 }

// encodeSnapshot writes documents by key as a snapshot reflecting tips.
func encodeSnapshot(tips map[string]string, docs map[string]*snapDoc) []byte {
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	raws := make([][]byte, len(keys))
	sums := make([]docSum, len(keys))
	postings := map[string][]post{}
	tokens := 0
	for i, k := range keys {
		d := docs[k]
		raws[i] = d.raw
		sums[i] = d.sum
		sums[i].key = k
		tokens += d.n
		dl := int32(normLen(lenAsNorm(d.n)))
		for _, e := range d.tf {
			postings[e.term] = append(postings[e.term], post{int32(i), e.n, dl})
		}
		d.tf = nil // the documents are this function's now: let them go as they are read
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	out, _ := encodeParts(tips, keys, raws, sums, tokens, 0, func(emit func(string, []post)) error {
		for _, t := range terms {
			emit(t, postings[t]) // ascending: documents were visited in order
		}
		return nil
	})
	return out
}

// encodeParts lays a snapshot out: keys (ascending) with their JSON and
// summaries, the total term count, and the terms, which eachTerm emits in ascending order,
// each with its postings by ascending document.
// sizeHint is the expected size of the file (0: unknown).
func encodeParts(tips map[string]string, keys []string, raws [][]byte, sums []docSum, tokens, sizeHint int, eachTerm func(emit func(string, []post)) error) ([]byte, error) {
	le := binary.LittleEndian
	out := make([]byte, snapHeader, max(sizeHint, snapHeader))
	docTable := make([]byte, 0, len(keys)*snapDocSize)
	for i, k := range keys {
		off := len(out)
		out = append(append(out, k...), raws[i]...)
		docTable = le.AppendUint64(docTable, uint64(off))
		docTable = le.AppendUint32(docTable, uint32(len(k)))
		docTable = le.AppendUint32(docTable, uint32(len(raws[i])))
		docTable = le.AppendUint32(docTable, crc32.Checksum(out[off:], snapCRC))
	}
	type dictEntry struct {
		term       string
		off, n, df int
		crc        uint32
	}
	var dict []dictEntry
	err := eachTerm(func(t string, ps []post) {
		if len(ps) == 0 {
			return
		}
		off, prev := len(out), int32(0)
		for _, p := range ps {
			out = binary.AppendUvarint(out, uint64(p.doc-prev))
			out = binary.AppendUvarint(out, uint64(p.tf))
			out = binary.AppendUvarint(out, uint64(p.dl))
			prev = p.doc
		}
		dict = append(dict, dictEntry{t, off, len(out) - off, len(ps), crc32.Checksum(out[off:], snapCRC)})
	})
	if err != nil {
		return nil, err
	}
	docOff := len(out)
	out = append(out, docTable...)
	sumOff := len(out)
	for _, sm := range sums {
		out = appendSum(out, sm)
	}
	sumLen := len(out) - sumOff
	var toc []byte
	tipKeys := make([]string, 0, len(tips))
	for k := range tips {
		tipKeys = append(tipKeys, k)
	}
	sort.Strings(tipKeys)
	appendStr := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	toc = binary.AppendUvarint(toc, uint64(len(tipKeys)))
	for _, k := range tipKeys {
		toc = appendStr(appendStr(toc, k), tips[k])
	}
	for b := 0; b*snapBlock < len(keys); b++ {
		end := min(len(docTable), (b+1)*snapBlock*snapDocSize)
		toc = binary.AppendUvarint(toc, uint64(crc32.Checksum(docTable[b*snapBlock*snapDocSize:end], snapCRC)))
	}
	nblocks := (len(dict) + snapBlock - 1) / snapBlock
	toc = binary.AppendUvarint(toc, uint64(nblocks))
	for b := 0; b < nblocks; b++ {
		off := len(out)
		for i := b * snapBlock; i < min(len(dict), (b+1)*snapBlock); i++ {
			e := dict[i]
			out = appendStr(out, e.term)
			out = binary.AppendUvarint(out, uint64(e.off))
			out = binary.AppendUvarint(out, uint64(e.n))
			out = binary.AppendUvarint(out, uint64(e.df))
			out = binary.AppendUvarint(out, uint64(e.crc))
		}
		toc = binary.AppendUvarint(toc, uint64(off))
		toc = binary.AppendUvarint(toc, uint64(len(out)-off))
		toc = binary.AppendUvarint(toc, uint64(crc32.Checksum(out[off:], snapCRC)))
		toc = appendStr(toc, dict[b*snapBlock].term)
	}
	toc = binary.AppendUvarint(toc, uint64(sumOff))
	toc = binary.AppendUvarint(toc, uint64(sumLen))
	toc = binary.AppendUvarint(toc, uint64(crc32.Checksum(out[sumOff:sumOff+sumLen], snapCRC)))
	tocOff := len(out)
	out = append(out, toc...)
	copy(out, snapshotMagic)
	le.PutUint32(out[8:], snapshotVersion)
	le.PutUint64(out[16:], uint64(len(out)))
	le.PutUint32(out[24:], uint32(len(keys)))
	le.PutUint32(out[28:], uint32(len(dict)))
	le.PutUint64(out[32:], uint64(tokens))
	le.PutUint64(out[40:], uint64(tocOff))
	le.PutUint32(out[48:], uint32(len(toc)))
	le.PutUint64(out[52:], uint64(docOff))
	le.PutUint32(out[60:], AnalysisPrint())
	le.PutUint32(out[12:], snapChecksum(out))
	return out, nil
}

// snapChecksum is the checksum of a snapshot's header (from byte 16) and
// table of contents.
func snapChecksum(data []byte) uint32 {
	le := binary.LittleEndian
	toc := data[le.Uint64(data[40:]):][:le.Uint32(data[48:])]
	return crc32.Update(crc32.Checksum(data[16:snapHeader], snapCRC), snapCRC, toc)
}

// docSum is what listing and counting need of a document, kept in the
// snapshot's summary table so that neither decodes the memory.
type docSum struct {
	key, typ         string
	created, validTo int64 // Unix seconds; validTo 0: none
}

func sumOf(key string, m *gitstore.Memory) docSum {
	s := docSum{key: key, typ: m.Type, created: m.Created.Unix()}
	if m.ValidTo != nil {
		s.validTo = m.ValidTo.Unix()
	}
	return s
}

func appendSum(b []byte, s docSum) []byte {
	b = append(binary.AppendUvarint(b, uint64(len(s.key))), s.key...)
	b = append(binary.AppendUvarint(b, uint64(len(s.typ))), s.typ...)
	b = binary.AppendVarint(b, s.created)
	return binary.AppendVarint(b, s.validTo)
}

// summaries reads the summary table, one entry per document.
func (s *snapshot) summaries() ([]docSum, error) {
	if s.sums != nil || s.ndocs == 0 {
		return s.sums, nil
	}
	sums := make([]docSum, 0, s.ndocs)
	err := s.scanSummaries(func(_ int, key, typ []byte, created, validTo int64) {
		sums = append(sums, docSum{key: string(key), typ: string(typ), created: created, validTo: validTo})
	})
	if err != nil {
		return nil, err
	}
	s.sums = sums
	return sums, nil
}

// scanSummaries calls fn with each summary of the table by position,
// without keeping them: key and typ are valid only during the call. Counting
// needs no string per memory.
//
// The table is read once (list scans it twice: the newest memories, then
// their neighbours' ids), through a memory map of its own where the system
// has them: at 100,000 memories it is megabytes, and a map of the page
// cache costs a command far fewer faults than a copy into memory it
// touches first. A fault reading the map (the file truncated by something
// other than git-mem) is an ErrSnapshot error.
func (s *snapshot) scanSummaries(fn func(i int, key, typ []byte, created, validTo int64)) error {
	if s.ndocs == 0 {
		return nil
	}
	err := faultsAsErrors(func() error {
		if s.sumTable == nil {
			if err := s.readSummaries(); err != nil {
				return err
			}
		}
		r := &byteReader{b: s.sumTable}
		for i := range s.ndocs {
			key := r.bytes(int(r.uvarint()))
			typ := r.bytes(int(r.uvarint()))
			created := r.varint()
			validTo := r.varint()
			if r.err != nil {
				return fmt.Errorf("%w: summary table", ErrSnapshot)
			}
			fn(i, key, typ, created, validTo)
		}
		return nil
	})
	if errors.Is(err, errMapFault) {
		s.dropSummaries()
	}
	return err
}

// errMapFault is the error of a fault reading a mapped snapshot: its file
// was truncated under the map by something other than git-mem (git-mem
// replaces a snapshot by renaming a new file over it).
var errMapFault = errors.New("the snapshot file changed under git-mem while it was read")

// faultsAsErrors runs fn, reading mapped snapshots on this goroutine, with
// a fault reading a map an ErrSnapshot error (errMapFault) where it would
// otherwise end the process with SIGBUS.
func faultsAsErrors(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if _, fault := p.(interface{ Addr() uintptr }); !fault {
				panic(p)
			}
			err = fmt.Errorf("%w: %w", ErrSnapshot, errMapFault)
		}
	}()
	return fn()
}

// readSummaries reads and checks the summary table: mapped, when the
// snapshot is read from a file the system can map, else read.
func (s *snapshot) readSummaries() error {
	if f, ok := s.r.(*os.File); ok && s.mapped == nil {
		if data, unmap, err := mapRange(f, s.sumOff, s.sumLen); err == nil {
			s.sumTable, s.unmapSums = data, unmap
			if crc32.Checksum(data, snapCRC) != s.sumCRC {
				s.dropSummaries()
				return fmt.Errorf("%w: checksum mismatch at %d", ErrSnapshot, s.sumOff)
			}
			return nil
		}
	}
	data, err := s.read(s.sumOff, s.sumLen, s.sumCRC)
	if err != nil {
		return err
	}
	s.sumTable = data
	return nil
}

func (r *byteReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.off += n
	return v
}
