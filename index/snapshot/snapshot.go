package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
)

// The layout and its checks are described in doc.go.
const (
	snapshotMagic  = "GMSNAP\x00\n"
	snapshotFormat = 5
	HeaderSize     = 64 // bytes before the data
	snapDocSize    = 20
	snapBlock      = 64
)

// Stamp is what a snapshot must have been written with to be read: the
// version of the document mapping (index.MappingVersion) and the print of
// the analysis (index.AnalysisPrint). A snapshot of another stamp is
// ErrUnusable, and rebuilt.
type Stamp struct {
	Mapping  uint32
	Analysis uint32
}

func (st Stamp) version() uint32 { return uint32(snapshotFormat*1000) + st.Mapping }

// ErrUnusable marks a snapshot file that cannot be used (missing, of
// another version, truncated or corrupt).
var ErrUnusable = errors.New("recall snapshot unusable")

// snapCRC is the snapshot's and the delta's checksum: CRC-32 (IEEE), whose
// tables cost a process next to nothing to set up; CRC-32C's cost more,
// paid by every hook before it reads a byte.
var snapCRC = crc32.IEEETable

// postingsBuffers hold the bytes of a postings list while it is decoded.
var postingsBuffers = sync.Pool{New: func() any { return new([]byte) }}

// File is an open snapshot file (or one just encoded in memory).
type File struct {
	r      io.ReaderAt
	mapped []byte // the file's content, when mapped (index's Access.Map)
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
	sums      []Summary
	sumTable  []byte // the summary table, once read and checked
	unmapSums func() // unmaps sumTable, when it is a map of its own
	docBlocks map[int][]byte
	// mappedTable are the blocks of the document table Key read from the
	// map (Doc reads its own from the file)
	mappedTable map[int][]byte
	dictBlocks  map[int][]byte
	termInfos   map[string]TermInfo
	seen        map[string][]byte // JSON by key of the documents External found
}

type termBlock struct {
	first string
	off   int64
	n     int
	crc   uint32
}

// TermInfo is where a term's postings lie, and how many documents hold it.
type TermInfo struct {
	off    int64
	n, df  int
	crc    uint32
	exists bool
}

// Open opens the snapshot at path and checks its header and table
// of contents; mapped reads its dictionary and postings through a memory
// map (index's Access.Map).
//
// A mapped snapshot reads its dictionary and postings through a read-only
// memory map that is never unmapped, where the system has them: what a
// recall reads is then the page cache's own memory, where reading it copied
// each postings list into memory the process touched first. Documents and
// their table are still read by the piece, from the file kept open: the few
// a recall loads lie scattered over the file, a page of the map each, and
// where the first touch of a page costs more than a read call they made a
// session start at 100,000 memories about a tenth slower. Keys alone (Key)
// are read from the map, their table too: the display ids' search reads
// a few keys in each of many places, and a fault brings in the pages around
// the one it touches. The maps last as
// long as the process, and the slices recall keeps point into them, so only
// a process that exits within seconds maps: a hook's, and git mem add's
// (whose duplicate check reads a common word's whole postings list). A
// snapshot is replaced by renaming a new file over it, never rewritten in
// place, so neither a map nor the open file changes under its reader; one
// truncated by another program faults, which its readers turn into an error
// (FaultsAsErrors, or the hooks' own recovery).
func Open(path string, mapped bool, stamp Stamp) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if mapped && st.Size() > 0 {
		if data, err := mapFile(f, st.Size()); err == nil {
			s, err := Read(bytes.NewReader(data), st.Size(), stamp)
			if err != nil {
				f.Close()
				return nil, err
			}
			s.mapped, s.pieces, s.closer, s.file = data, f, f, st
			return s, nil
		}
	}
	s, err := Read(f, st.Size(), stamp)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer, s.file = f, st
	return s, nil
}

// Close closes the file and lets go of the summary table.
func (s *File) Close() {
	s.DropSummaries()
	if s.closer != nil {
		s.closer.Close()
	}
}

// DropSummaries lets go of the summary table read and its summaries.
func (s *File) DropSummaries() {
	if s.unmapSums != nil {
		s.unmapSums()
		s.unmapSums = nil
	}
	s.sumTable, s.sums = nil, nil
}

func Read(r io.ReaderAt, size int64, stamp Stamp) (*File, error) {
	head := make([]byte, HeaderSize)
	if _, err := r.ReadAt(head, 0); err != nil || string(head[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a snapshot", ErrUnusable)
	}
	le := binary.LittleEndian
	if v := le.Uint32(head[8:]); v != stamp.version() {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrUnusable, v, stamp.version())
	}
	if le.Uint32(head[60:]) != stamp.Analysis {
		return nil, fmt.Errorf("%w: written with another thesaurus", ErrUnusable)
	}
	if n := le.Uint64(head[16:]); int64(n) != size {
		return nil, fmt.Errorf("%w: %d bytes, the header says %d (truncated?)", ErrUnusable, size, n)
	}
	tocOff, tocLen := int64(le.Uint64(head[40:])), int64(le.Uint32(head[48:]))
	if tocOff < HeaderSize || tocOff+tocLen > size {
		return nil, fmt.Errorf("%w: table of contents out of range", ErrUnusable)
	}
	toc := make([]byte, tocLen)
	if _, err := r.ReadAt(toc, tocOff); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	if crc32.Update(crc32.Checksum(head[16:], snapCRC), snapCRC, toc) != le.Uint32(head[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrUnusable)
	}
	s := &File{r: r, size: size, crc: le.Uint32(head[12:]),
		ndocs: int(le.Uint32(head[24:])), nterms: int(le.Uint32(head[28:])),
		tokens: int(le.Uint64(head[32:])), docOff: int64(le.Uint64(head[52:]))}
	br := &Decoder{b: toc}
	s.tips = br.Tips()
	// the tables are made at their size: at 100,000 memories, growing them
	// touched twice the memory, and a page first touched costs a new
	// process more than reading it
	nblocks := (s.ndocs + snapBlock - 1) / snapBlock
	if nblocks > len(toc) { // each checksum takes a byte of the table at least
		return nil, fmt.Errorf("%w: bad table of contents", ErrUnusable)
	}
	s.docCRC = make([]uint32, 0, nblocks)
	for range nblocks {
		s.docCRC = append(s.docCRC, uint32(br.Uvarint()))
	}
	n := br.Uvarint()
	if n > uint64(len(toc)) { // each block takes bytes of the table
		return nil, fmt.Errorf("%w: bad table of contents", ErrUnusable)
	}
	s.blocks = make([]termBlock, 0, n)
	for i := uint64(0); i < n && br.err == nil; i++ {
		b := termBlock{off: int64(br.Uvarint()), n: int(br.Uvarint()), crc: uint32(br.Uvarint())}
		b.first = br.Str()
		s.blocks = append(s.blocks, b)
	}
	s.sumOff, s.sumLen, s.sumCRC = int64(br.Uvarint()), int(br.Uvarint()), uint32(br.Uvarint())
	if br.err != nil || s.docOff < HeaderSize || s.docOff+int64(s.ndocs*snapDocSize) > size || s.sumOff+int64(s.sumLen) > size {
		return nil, fmt.Errorf("%w: bad table of contents", ErrUnusable)
	}
	return s, nil
}

// Decoder reads uvarint-encoded data, remembering the first error; the
// delta's segments are read with it too.
type Decoder struct {
	b   []byte
	off int
	err error
}

var errShort = errors.New("short data")

// NewDecoder reads b from off.
func NewDecoder(b []byte, off int) Decoder { return Decoder{b: b, off: off} }

// Err is the first error met, if any.
func (r *Decoder) Err() error { return r.err }

// Off is where the next read starts.
func (r *Decoder) Off() int { return r.off }

// Data is the whole of what r reads.
func (r *Decoder) Data() []byte { return r.b }

// Fail makes r short of data, as a count past what it holds is.
func (r *Decoder) Fail() { r.err = errShort }

func (r *Decoder) Uvarint() uint64 {
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

func (r *Decoder) Bytes(n int) []byte {
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

func (r *Decoder) Str() string { return string(r.Bytes(int(r.Uvarint()))) }

// read reads n bytes at off and checks them against crc.
func (s *File) read(off int64, n int, crc uint32) ([]byte, error) {
	return s.readInto(nil, off, n, crc)
}

// readInto is read into buf's memory when it has room; from a mapped
// file, it is the map's memory, which is read-only.
func (s *File) readInto(buf []byte, off int64, n int, crc uint32) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > s.size {
		return nil, fmt.Errorf("%w: offset out of range", ErrUnusable)
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
			return nil, fmt.Errorf("%w: %v", ErrUnusable, err)
		}
	}
	if crc32.Checksum(b, snapCRC) != crc {
		return nil, fmt.Errorf("%w: checksum mismatch at %d", ErrUnusable, off)
	}
	return b, nil
}

// pieceSlab is the size of the slabs pieces are read into.
const pieceSlab = 32 << 10

// readPiece reads a small piece its callers keep (a document, a block of
// the document table): from a mapped file by a read call into the current
// slab, else as read does.
func (s *File) readPiece(off int64, n int, crc uint32) ([]byte, error) {
	if s.pieces == nil {
		return s.read(off, n, crc)
	}
	if off < 0 || n < 0 || off+int64(n) > s.size {
		return nil, fmt.Errorf("%w: offset out of range", ErrUnusable)
	}
	if len(s.slab)+n > cap(s.slab) {
		s.slab = make([]byte, 0, max(pieceSlab, n))
	}
	b := s.slab[len(s.slab) : len(s.slab)+n : len(s.slab)+n]
	if _, err := s.pieces.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	if crc32.Checksum(b, snapCRC) != crc {
		return nil, fmt.Errorf("%w: checksum mismatch at %d", ErrUnusable, off)
	}
	s.slab = s.slab[:len(s.slab)+n]
	return b, nil
}

// Doc reads document i's key and JSON.
func (s *File) Doc(i int) (key string, raw []byte, err error) {
	if i < 0 || i >= s.ndocs {
		return "", nil, fmt.Errorf("%w: no document %d", ErrUnusable, i)
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

// Key is document i's key, checked against the document's checksum as
// Doc's is. From a mapped file the key and the document table are read from
// the map: a search for ids' neighbours (index's display ids) reads a few
// keys in each of many places of the file, and a fault on the map brings in
// the pages around the one it touches, where a read call per document cost
// more. Its callers read a mapped file's keys under FaultsAsErrors.
func (s *File) Key(i int) (string, error) {
	if s.mapped == nil {
		key, _, err := s.Doc(i)
		return key, err
	}
	if i < 0 || i >= s.ndocs {
		return "", fmt.Errorf("%w: no document %d", ErrUnusable, i)
	}
	bi := i / snapBlock
	blk, ok := s.mappedTable[bi]
	if !ok {
		var err error
		n := min(snapBlock, s.ndocs-bi*snapBlock)
		if blk, err = s.read(s.docOff+int64(bi*snapBlock*snapDocSize), n*snapDocSize, s.docCRC[bi]); err != nil {
			return "", err
		}
		if s.mappedTable == nil {
			s.mappedTable = map[int][]byte{}
		}
		s.mappedTable[bi] = blk
	}
	e := blk[(i%snapBlock)*snapDocSize:]
	le := binary.LittleEndian
	klen := int(le.Uint32(e[8:]))
	b, err := s.read(int64(le.Uint64(e)), klen+int(le.Uint32(e[12:])), le.Uint32(e[16:]))
	if err != nil {
		return "", err
	}
	return string(b[:klen]), nil
}

// EachTerm calls fn for every term of dictionary block bi; the term's
// bytes are the block's, valid during the call (a lookup compares them
// without making a string of each). keep keeps the checked block for the
// next lookup in it: a query's terms, expanded, fall in a few blocks (at
// 10,000 memories a prompt's 69 lookups in 5), each read and checksummed
// once rather than at every lookup; a pass over every block keeps none.
func (s *File) EachTerm(bi int, keep bool, fn func(term []byte, ti TermInfo) bool) error {
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
	r := &Decoder{b: data}
	for r.off < len(data) && r.err == nil {
		t := r.Bytes(int(r.Uvarint()))
		ti := TermInfo{off: int64(r.Uvarint()), n: int(r.Uvarint()), df: int(r.Uvarint()), crc: uint32(r.Uvarint()), exists: true}
		if r.err == nil && !fn(t, ti) {
			return nil
		}
	}
	if r.err != nil {
		return fmt.Errorf("%w: dictionary block %d", ErrUnusable, bi)
	}
	return nil
}

// findTerm looks a term up in its dictionary block.
func (s *File) findTerm(term string) (TermInfo, error) {
	if ti, ok := s.termInfos[term]; ok {
		return ti, nil
	}
	var found TermInfo
	bi := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].first > term }) - 1
	if bi >= 0 {
		err := s.EachTerm(bi, true, func(t []byte, ti TermInfo) bool {
			if string(t) == term {
				found = ti
			}
			return string(t) < term
		})
		if err != nil {
			return TermInfo{}, err
		}
	}
	if s.termInfos == nil {
		s.termInfos = map[string]TermInfo{}
	}
	s.termInfos[term] = found
	return found, nil
}

// DF is the number of documents holding term.
func (s *File) DF(term string) (int, error) {
	ti, err := s.findTerm(term)
	return ti.df, err
}

// Postings calls fn for each posting of term: document number, the term's
// frequency and the document's length as scoring reads it.
func (s *File) Postings(term string, fn func(doc uint64, tf, dl int)) error {
	ti, err := s.findTerm(term)
	if err != nil || !ti.exists {
		return err
	}
	return s.PostingsOf(ti, fn)
}

// PostingsAmong calls fn for the documents of docs (ascending) that
// contain term. The list is still decoded from its start, but a document
// is compared with the next of docs rather than handed to fn, and decoding
// stops past the last of them: scoring asks this of a common word once its
// candidates are few, and at 100,000 memories such a word's list runs to
// tens of thousands of documents.
func (s *File) PostingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error {
	ti, err := s.findTerm(term)
	if err != nil || !ti.exists || len(docs) == 0 {
		return err
	}
	return s.postingsListed(ti, docs, fn)
}

// PostingsOf is Postings of a term EachTerm found.
func (s *File) PostingsOf(ti TermInfo, fn func(doc uint64, tf, dl int)) error {
	return s.postingsListed(ti, nil, fn)
}

// postingsListed calls fn for the postings of ti: all of them when among is
// nil, else those of the documents of among (ascending).
func (s *File) postingsListed(ti TermInfo, among []uint64, fn func(doc uint64, tf, dl int)) error {
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
				return fmt.Errorf("%w: postings at %d", ErrUnusable, ti.off)
			}
			v[j] = x
			off += n
		}
		doc += v[0]
		if doc >= uint64(s.ndocs) {
			return fmt.Errorf("%w: postings at %d", ErrUnusable, ti.off)
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

// External is the key of document doc; the document's JSON is kept for
// Raw, as ranking loads the documents it found.
func (s *File) External(doc uint64) (string, error) {
	if doc >= uint64(s.ndocs) {
		return "", fmt.Errorf("%w: no document %d", ErrUnusable, doc)
	}
	k, raw, err := s.Doc(int(doc))
	if err == nil {
		if s.seen == nil {
			s.seen = map[string][]byte{}
		}
		s.seen[k] = raw
	}
	return k, err
}

// Raw returns a memory's JSON by key: ranking loads the documents External
// found, so they come from its cache; others are searched for. ok is false
// when the snapshot has no such document.
func (s *File) Raw(key string) (raw []byte, ok bool, err error) {
	if raw, ok := s.seen[key]; ok {
		return raw, true, nil
	}
	if _, raw, err = s.Find(key); err != nil {
		return nil, false, err
	}
	return raw, raw != nil, nil
}

// Find looks a key up: its document number and JSON, or -1.
func (s *File) Find(key string) (int, []byte, error) {
	var ferr error
	var raw []byte
	i := sort.Search(s.ndocs, func(i int) bool {
		k, r, err := s.Doc(i)
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
		return -1, nil, ferr
	}
	if raw == nil {
		return -1, nil, nil
	}
	return i, raw, nil
}

// Post is one posting while a snapshot is written: document number, term
// frequency and document length as scoring reads it.
type Post struct{ Doc, TF, DL int32 }

// Encode lays a snapshot out: keys (ascending) with their JSON and
// summaries, the total term count, and the terms, which eachTerm emits in ascending order,
// each with its postings by ascending document.
// sizeHint is the expected size of the file (0: unknown).
func Encode(st Stamp, tips map[string]string, keys []string, raws [][]byte, sums []Summary, tokens, sizeHint int, eachTerm func(emit func(string, []Post)) error) ([]byte, error) {
	le := binary.LittleEndian
	out := make([]byte, HeaderSize, max(sizeHint, HeaderSize))
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
	err := eachTerm(func(t string, ps []Post) {
		if len(ps) == 0 {
			return
		}
		off, prev := len(out), int32(0)
		for _, p := range ps {
			out = binary.AppendUvarint(out, uint64(p.Doc-prev))
			out = binary.AppendUvarint(out, uint64(p.TF))
			out = binary.AppendUvarint(out, uint64(p.DL))
			prev = p.Doc
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
	le.PutUint32(out[8:], st.version())
	le.PutUint64(out[16:], uint64(len(out)))
	le.PutUint32(out[24:], uint32(len(keys)))
	le.PutUint32(out[28:], uint32(len(dict)))
	le.PutUint64(out[32:], uint64(tokens))
	le.PutUint64(out[40:], uint64(tocOff))
	le.PutUint32(out[48:], uint32(len(toc)))
	le.PutUint64(out[52:], uint64(docOff))
	le.PutUint32(out[60:], st.Analysis)
	le.PutUint32(out[12:], snapChecksum(out))
	return out, nil
}

// SetTokens sets the total term count of an encoded snapshot, for a writer
// that counts them while Encode lays the terms out, and seals the header
// again.
func SetTokens(data []byte, tokens int) {
	binary.LittleEndian.PutUint64(data[32:], uint64(tokens))
	binary.LittleEndian.PutUint32(data[12:], snapChecksum(data))
}

// Checksum is the snapshot's and its delta's checksum of b.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, snapCRC) }

// snapChecksum is the checksum of a snapshot's header (from byte 16) and
// table of contents.
func snapChecksum(data []byte) uint32 {
	le := binary.LittleEndian
	toc := data[le.Uint64(data[40:]):][:le.Uint32(data[48:])]
	return crc32.Update(crc32.Checksum(data[16:HeaderSize], snapCRC), snapCRC, toc)
}

// Summary is what listing and counting need of a document, kept in the
// snapshot's summary table so that neither decodes the memory.
type Summary struct {
	Key, Type        string
	Created, ValidTo int64 // Unix seconds; ValidTo 0: none
}

// SummaryOf is the summary of memory m under key.
func SummaryOf(key string, m *gitstore.Memory) Summary {
	s := Summary{Key: key, Type: m.Type, Created: m.Created.Unix()}
	if m.ValidTo != nil {
		s.ValidTo = m.ValidTo.Unix()
	}
	return s
}

func appendSum(b []byte, s Summary) []byte {
	b = append(binary.AppendUvarint(b, uint64(len(s.Key))), s.Key...)
	b = append(binary.AppendUvarint(b, uint64(len(s.Type))), s.Type...)
	b = binary.AppendVarint(b, s.Created)
	return binary.AppendVarint(b, s.ValidTo)
}

// Summaries reads the summary table, one entry per document.
func (s *File) Summaries() ([]Summary, error) {
	if s.sums != nil || s.ndocs == 0 {
		return s.sums, nil
	}
	sums := make([]Summary, 0, s.ndocs)
	err := s.ScanSummaries(func(_ int, key, typ []byte, created, validTo int64) {
		sums = append(sums, Summary{Key: string(key), Type: string(typ), Created: created, ValidTo: validTo})
	})
	if err != nil {
		return nil, err
	}
	s.sums = sums
	return sums, nil
}

// ScanSummaries calls fn with each summary of the table by position,
// without keeping them: key and typ are valid only during the call. Counting
// needs no string per memory.
//
// The table is read once (list scans it twice: the newest memories, then
// their neighbours' ids), through a memory map of its own where the system
// has them: at 100,000 memories it is megabytes, and a map of the page
// cache costs a command far fewer faults than a copy into memory it
// touches first. A fault reading the map (the file truncated by something
// other than git-mem) is an ErrUnusable error.
func (s *File) ScanSummaries(fn func(i int, key, typ []byte, created, validTo int64)) error {
	if s.ndocs == 0 {
		return nil
	}
	err := FaultsAsErrors(func() error {
		if s.sumTable == nil {
			if err := s.readSummaries(); err != nil {
				return err
			}
		}
		r := &Decoder{b: s.sumTable}
		for i := range s.ndocs {
			key := r.Bytes(int(r.Uvarint()))
			typ := r.Bytes(int(r.Uvarint()))
			created := r.Varint()
			validTo := r.Varint()
			if r.err != nil {
				return fmt.Errorf("%w: summary table", ErrUnusable)
			}
			fn(i, key, typ, created, validTo)
		}
		return nil
	})
	if errors.Is(err, ErrMapFault) {
		s.DropSummaries()
	}
	return err
}

// ErrMapFault is the error of a fault reading a mapped snapshot: its file
// was truncated under the map by something other than git-mem (git-mem
// replaces a snapshot by renaming a new file over it).
var ErrMapFault = errors.New("the snapshot file changed under git-mem while it was read")

// FaultsAsErrors runs fn, reading mapped snapshots on this goroutine, with
// a fault reading a map an ErrUnusable error (ErrMapFault) where it would
// otherwise end the process with SIGBUS.
func FaultsAsErrors(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if _, fault := p.(interface{ Addr() uintptr }); !fault {
				panic(p)
			}
			err = fmt.Errorf("%w: %w", ErrUnusable, ErrMapFault)
		}
	}()
	return fn()
}

// readSummaries reads and checks the summary table: mapped, when the
// snapshot is read from a file the system can map, else read.
func (s *File) readSummaries() error {
	if f, ok := s.r.(*os.File); ok && s.mapped == nil {
		if data, unmap, err := mapRange(f, s.sumOff, s.sumLen); err == nil {
			s.sumTable, s.unmapSums = data, unmap
			if crc32.Checksum(data, snapCRC) != s.sumCRC {
				s.DropSummaries()
				return fmt.Errorf("%w: checksum mismatch at %d", ErrUnusable, s.sumOff)
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

func (r *Decoder) Varint() int64 {
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

// Tips reads uvarint-counted tips (store key, commit), as the table of
// contents and the delta's segments hold them.
func (r *Decoder) Tips() map[string]string {
	tips := map[string]string{}
	for i, n := 0, r.Uvarint(); uint64(i) < n && r.err == nil; i++ {
		k := recordedStoreKey(r.Str())
		tips[k] = r.Str()
	}
	return tips
}

// recordedStoreKey reads a store key a snapshot recorded. Earlier versions
// appended the repository's directory after the ref; such a key reads as
// today's, so that upgrading does not rebuild every snapshot.
func recordedStoreKey(k string) string {
	scope, rest, _ := strings.Cut(k, " ")
	ref, _, _ := strings.Cut(rest, " ")
	return scope + " " + ref
}

// Tips are the ref tips the snapshot reflects, by store key.
func (s *File) Tips() map[string]string { return s.tips }

// Docs is the number of documents.
func (s *File) Docs() int { return s.ndocs }

// Tokens is the total term count of the documents.
func (s *File) Tokens() int { return s.tokens }

// CRC is the header's checksum: which base a delta extends.
func (s *File) CRC() uint32 { return s.crc }

// Size is the file's length.
func (s *File) Size() int64 { return s.size }

// Info describes the file read, nil for a snapshot read from memory.
func (s *File) Info() os.FileInfo { return s.file }

// Blocks is the number of dictionary blocks (EachTerm).
func (s *File) Blocks() int { return len(s.blocks) }

// ForgetLoaded lets go of the documents External found.
func (s *File) ForgetLoaded() { s.seen = nil }

// Loaded is the number of documents External found and the snapshot holds.
func (s *File) Loaded() int { return len(s.seen) }

// Mapped reports whether the dictionary and postings are read through a
// memory map.
func (s *File) Mapped() bool { return s.mapped != nil }
