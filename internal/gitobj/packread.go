package gitobj

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// packReader reads the loose objects and the packs of one objects
// directory without loading the packs' indexes: a whole .idx is
// O(objects in the repository), the code history's included, for every
// process however few objects it reads. Here an object's offset is found
// by a binary search in the part of the .idx its first byte selects (one
// read), and the object, with its delta chain, is inflated from the .pack.
// See docs/architecture.md, storage.
type packReader struct {
	dir string // <objects dir>/pack

	mu     sync.Mutex
	packs  []*packFile // the packs it reads, listed on first use
	listed bool
	bases  map[baseKey][]byte // recently inflated delta bases
	order  []baseKey
	size   int
	// one inflater and its buffer, reset for each object: reading a whole
	// store would otherwise allocate a decompressor's window per memory
	zr io.ReadCloser
	br *bufio.Reader
	// loose lists, per two-digit directory of objects/, the loose objects
	// there when it was first looked at
	loose map[string]map[string]bool
}

// rawObject is an object as read: its type (1 commit, 2 tree, 3 blob,
// 4 tag) and content.
type rawObject struct {
	typ  int
	data []byte
}

type baseKey struct {
	pack   *packFile
	offset int64
}

// maxBaseCache bounds the bytes of delta bases kept between reads.
const maxBaseCache = 8 << 20

type packFile struct {
	path      string // of the .idx
	version   int    // of the .idx: 1 or 2
	idx, pack *os.File
	fanout    [256]uint32
	// buckets caches, per first byte of a name, the idx's names and offsets
	// of that byte, read once: a read of every memory touches each bucket
	// many times
	buckets [256]*idxBucket
}

// idxBucket is the part of an idx whose names start with one byte.
type idxBucket struct {
	names   []byte // 20 bytes a name
	offsets []byte // 4 bytes a name
}

// maxBucketCache is the largest bucket kept (a pack of some 800,000
// objects): the buckets of a huge pack are read again at each lookup.
const maxBucketCache = 64 << 10

const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

// errNotInPacks: the object is in none of the packs this reader reads.
var errNotInPacks = errors.New("not in the packs")

func newPackReader(objectsDir string) *packReader {
	return &packReader{dir: filepath.Join(objectsDir, "pack")}
}

// isLoose reports whether h was a loose object when its directory was
// first listed. Either answer is safe when it has changed since: an object
// written loose later is not in the packs, so the caller reads it loose
// next; one packed and pruned since is found once the packs are listed
// again.
// Listing a directory once costs less than a stat per object when a whole
// store is read.
func (p *packReader) isLoose(h Hash) bool {
	hex := h.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	dir, ok := p.loose[hex[:2]]
	if !ok {
		dir = map[string]bool{}
		entries, _ := os.ReadDir(filepath.Join(filepath.Dir(p.dir), hex[:2]))
		for _, e := range entries {
			dir[e.Name()] = true
		}
		if p.loose == nil {
			p.loose = map[string]map[string]bool{}
		}
		p.loose[hex[:2]] = dir
	}
	return dir[hex[2:]]
}

// read returns the object h, or errNotInPacks.
func (p *packReader) read(h Hash) (rawObject, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.listed {
		p.list()
	}
	for _, pf := range p.packs {
		if pf.idx == nil {
			// past the packs kept open: opened for this lookup only
			o, err := p.readTransient(pf, h)
			if errors.Is(err, errNotInPacks) {
				continue
			}
			return o, err
		}
		off, ok, err := pf.find(h)
		if err != nil {
			return rawObject{}, err
		}
		if ok {
			return p.at(pf, off, 0)
		}
	}
	return rawObject{}, errNotInPacks
}

// readTransient reads h from pf, whose files are opened for this read
// only. pf itself stays what the cached delta bases are keyed by.
func (p *packReader) readTransient(pf *packFile, h Hash) (rawObject, error) {
	opened, err := openPackFile(pf.path)
	if err != nil {
		return rawObject{}, errNotInPacks
	}
	pf.version, pf.fanout, pf.idx, pf.pack = opened.version, opened.fanout, opened.idx, opened.pack
	defer func() {
		pf.close()
		pf.idx, pf.pack = nil, nil
	}()
	off, ok, err := pf.find(h)
	if err != nil {
		return rawObject{}, err
	}
	if !ok {
		return rawObject{}, errNotInPacks
	}
	return p.at(pf, off, 0)
}

// maxPacks is the most packs the reader keeps open, newest first; a
// repository never repacked may have more, which are opened for each
// lookup that reaches them.
var maxPacks = 64

// list opens the packs, newest first (where new objects are), up to
// maxPacks, and keeps the paths of the others.
func (p *packReader) list() {
	p.listed = true
	names, _ := filepath.Glob(filepath.Join(p.dir, "pack-*.idx"))
	type named struct {
		path string
		mod  int64
	}
	var all []named
	for _, name := range names {
		if st, err := os.Stat(name); err == nil {
			all = append(all, named{name, st.ModTime().UnixNano()})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].mod != all[j].mod {
			return all[i].mod > all[j].mod
		}
		return all[i].path < all[j].path
	})
	for _, n := range all {
		if len(p.packs) >= maxPacks {
			p.packs = append(p.packs, &packFile{path: n.path})
			continue
		}
		if pf, err := openPackFile(n.path); err == nil {
			p.packs = append(p.packs, pf)
		}
	}
}

// close releases the packs' files.
func (p *packReader) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pf := range p.packs {
		pf.close()
	}
	p.packs, p.listed, p.bases, p.order, p.size = nil, false, nil, nil, 0
	p.zr, p.br, p.loose = nil, nil, nil
}

// idxV2Magic starts an index of version 2; one of version 1 (git's
// before 1.5.2) starts with its fan-out table.
var idxV2Magic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

func openPackFile(idxPath string) (*packFile, error) {
	idx, err := os.Open(idxPath)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 8+256*4)
	n, err := idx.ReadAt(head, 0)
	pf := &packFile{path: idxPath, version: 2, idx: idx}
	fan := head[8:]
	switch {
	case n == len(head) && bytes.Equal(head[:8], idxV2Magic):
	case n >= 256*4 && !bytes.Equal(head[:4], idxV2Magic[:4]):
		pf.version, fan = 1, head[:256*4]
	default:
		idx.Close()
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("not a pack index of version 1 or 2")
		}
		return nil, fmt.Errorf("%s: %w", idxPath, err)
	}
	for i := range pf.fanout {
		pf.fanout[i] = binary.BigEndian.Uint32(fan[4*i:])
	}
	if pf.pack, err = os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack"); err != nil {
		idx.Close()
		return nil, err
	}
	return pf, nil
}

// close releases the pack's files, if open.
func (pf *packFile) close() {
	if pf.idx != nil {
		pf.idx.Close()
		pf.pack.Close()
	}
}

// find looks h up in the idx: the names starting with h's first byte are
// read at once (and kept) and searched.
func (pf *packFile) find(h Hash) (int64, bool, error) {
	b, err := pf.bucket(h[0])
	if err != nil || b == nil {
		return 0, false, err
	}
	n := len(b.names) / 20
	i := sort.Search(n, func(i int) bool { return bytes.Compare(b.names[20*i:20*i+20], h[:]) >= 0 })
	if i == n || !bytes.Equal(b.names[20*i:20*i+20], h[:]) {
		return 0, false, nil
	}
	off := int64(binary.BigEndian.Uint32(b.offsets[4*i:]))
	if off&0x80000000 != 0 && pf.version == 2 {
		// a pack over 2 GiB: the offset is in the table of large ones
		var large [8]byte
		total := int64(pf.fanout[255])
		if _, err := pf.idx.ReadAt(large[:], 8+256*4+28*total+8*(off&0x7fffffff)); err != nil {
			return 0, false, err
		}
		off = int64(binary.BigEndian.Uint64(large[:]))
	}
	return off, true, nil
}

// bucket reads the names and offsets of the objects whose names start
// with first (nil: none).
func (pf *packFile) bucket(first byte) (*idxBucket, error) {
	if b := pf.buckets[first]; b != nil {
		return b, nil
	}
	lo := uint32(0)
	if first > 0 {
		lo = pf.fanout[first-1]
	}
	hi, total := pf.fanout[first], pf.fanout[255]
	if hi <= lo || hi > total {
		return nil, nil
	}
	b := &idxBucket{names: make([]byte, 20*(hi-lo)), offsets: make([]byte, 4*(hi-lo))}
	if pf.version == 1 {
		// entries of an offset and a name
		entries := make([]byte, 24*(hi-lo))
		if _, err := pf.idx.ReadAt(entries, 256*4+24*int64(lo)); err != nil {
			return nil, err
		}
		for i := 0; i < int(hi-lo); i++ {
			copy(b.offsets[4*i:], entries[24*i:24*i+4])
			copy(b.names[20*i:], entries[24*i+4:24*i+24])
		}
	} else {
		if _, err := pf.idx.ReadAt(b.names, 8+256*4+20*int64(lo)); err != nil {
			return nil, err
		}
		// after the names and their CRCs
		if _, err := pf.idx.ReadAt(b.offsets, 8+256*4+24*int64(total)+4*int64(lo)); err != nil {
			return nil, err
		}
	}
	if len(b.names) <= maxBucketCache {
		pf.buckets[first] = b
	}
	return b, nil
}

// maxDeltaDepth bounds a delta chain (git's own default depth is 50).
const maxDeltaDepth = 1000

// at reads the object at offset in pf, resolving deltas.
func (p *packReader) at(pf *packFile, offset int64, depth int) (rawObject, error) {
	if depth > maxDeltaDepth {
		return rawObject{}, fmt.Errorf("pack: delta chain deeper than %d", maxDeltaDepth)
	}
	var head [32]byte
	n, err := pf.pack.ReadAt(head[:], offset)
	if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
		return rawObject{}, err
	}
	b := head[:n]
	typ := int(b[0]>>4) & 7
	size := uint64(b[0] & 15)
	i, shift := 1, uint(4)
	for b[i-1]&0x80 != 0 {
		if i >= len(b) || shift > 60 {
			return rawObject{}, fmt.Errorf("pack: bad object header at %d", offset)
		}
		size |= uint64(b[i]&0x7f) << shift
		shift += 7
		i++
	}
	var base rawObject
	switch typ {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		if i >= len(b) {
			return rawObject{}, fmt.Errorf("pack: bad delta header at %d", offset)
		}
		c := b[i]
		rel := int64(c & 0x7f)
		i++
		for c&0x80 != 0 {
			if i >= len(b) {
				return rawObject{}, fmt.Errorf("pack: bad delta offset at %d", offset)
			}
			c = b[i]
			rel = (rel+1)<<7 | int64(c&0x7f)
			i++
		}
		if rel <= 0 || rel > offset {
			return rawObject{}, fmt.Errorf("pack: bad delta offset at %d", offset)
		}
		if base, err = p.base(pf, offset-rel, depth); err != nil {
			return rawObject{}, err
		}
	case objRefDelta:
		if i+20 > len(b) {
			return rawObject{}, fmt.Errorf("pack: bad delta header at %d", offset)
		}
		var bh Hash
		copy(bh[:], b[i:i+20])
		i += 20
		boff, ok, err := pf.find(bh)
		if err != nil {
			return rawObject{}, err
		}
		if !ok {
			return rawObject{}, fmt.Errorf("pack: the base of the delta at %d is not in its pack", offset)
		}
		if base, err = p.base(pf, boff, depth); err != nil {
			return rawObject{}, err
		}
	default:
		return rawObject{}, fmt.Errorf("pack: object type %d at %d", typ, offset)
	}
	data, err := p.inflate(pf.pack, offset+int64(i), size)
	if err != nil {
		return rawObject{}, fmt.Errorf("pack: object at %d: %w", offset, err)
	}
	if typ == objOfsDelta || typ == objRefDelta {
		if data, err = applyDelta(base.data, data); err != nil {
			return rawObject{}, fmt.Errorf("pack: object at %d: %w", offset, err)
		}
		typ = base.typ
	}
	return rawObject{typ: typ, data: data}, nil
}

// base reads a delta's base, from the cache when it was read lately (the
// objects of one tree share their bases).
func (p *packReader) base(pf *packFile, offset int64, depth int) (rawObject, error) {
	k := baseKey{pf, offset}
	if d, ok := p.bases[k]; ok {
		return rawObject{typ: int(d[0]), data: d[1:]}, nil
	}
	o, err := p.at(pf, offset, depth+1)
	if err != nil {
		return o, err
	}
	if len(o.data) < maxBaseCache/8 {
		if p.bases == nil {
			p.bases = map[baseKey][]byte{}
		}
		p.bases[k] = append([]byte{byte(o.typ)}, o.data...)
		p.order = append(p.order, k)
		p.size += len(o.data) + 1
		for p.size > maxBaseCache && len(p.order) > 0 {
			old := p.order[0]
			p.order = p.order[1:]
			p.size -= len(p.bases[old])
			delete(p.bases, old)
		}
	}
	return o, nil
}

// inflate reads size bytes of zlib data at offset.
func (p *packReader) inflate(f *os.File, offset int64, size uint64) ([]byte, error) {
	if size > MaxObjectBytes {
		return nil, &TooLargeError{size}
	}
	zr, err := p.inflater(io.NewSectionReader(f, offset, 1<<62))
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// MaxObjectBytes is the largest object the reader inflates: 64 MiB, 64
// times the largest memory document.
const MaxObjectBytes = 64 << 20

// TooLargeError is an object past MaxObjectBytes, left uninflated. Its
// size is in its header, so it is known without reading it: a memory
// document that large is an invalid document, not a damaged store.
type TooLargeError struct{ Size uint64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("object of %d bytes: larger than git-mem reads", e.Size)
}

// inflater resets the reader's one decompressor to read src.
func (p *packReader) inflater(src io.Reader) (io.Reader, error) {
	if p.br == nil {
		p.br = bufio.NewReaderSize(src, 4096)
	} else {
		p.br.Reset(src)
	}
	if p.zr == nil {
		zr, err := zlib.NewReader(p.br)
		if err != nil {
			return nil, err
		}
		p.zr = zr
	} else if err := p.zr.(zlib.Resetter).Reset(p.br, nil); err != nil {
		return nil, err
	}
	return p.zr, nil
}

// looseTypes are the object types by the name a loose object's header
// gives them.
var looseTypes = map[string]int{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

// readLoose reads the loose object h, whose zlib stream holds the header
// "TYPE SIZE\x00" and then the content. It shares the reader's decompressor:
// a session's first hook after a write reads the new trees and documents
// loose, and go-git allocates a decompressor for each.
func (p *packReader) readLoose(h Hash) (rawObject, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(filepath.Dir(p.dir), hex[:2], hex[2:]))
	if err != nil {
		return rawObject{}, err
	}
	defer f.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	zr, err := p.inflater(f)
	if err != nil {
		return rawObject{}, err
	}
	var head []byte
	var b [1]byte
	for len(head) < 32 {
		if _, err := io.ReadFull(zr, b[:]); err != nil {
			return rawObject{}, err
		}
		if b[0] == 0 {
			break
		}
		head = append(head, b[0])
	}
	name, sizeText, ok := strings.Cut(string(head), " ")
	typ, known := looseTypes[name]
	size, err := strconv.ParseUint(sizeText, 10, 63)
	if !ok || !known || err != nil || b[0] != 0 {
		return rawObject{}, fmt.Errorf("loose object %s: bad header %q", hex, head)
	}
	if size > MaxObjectBytes {
		return rawObject{}, &TooLargeError{size}
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return rawObject{}, err
	}
	return rawObject{typ: typ, data: out}, nil
}

// applyDelta applies a git delta to base: the sizes, then copies from
// base and inserts of new bytes.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("bad delta")
	varint := func() (uint64, bool) {
		var v uint64
		for shift := uint(0); len(delta) > 0 && shift < 64; shift += 7 {
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != uint64(len(base)) || dstSize > MaxObjectBytes {
		return nil, bad
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		if op&0x80 == 0 {
			if op == 0 || int(op) > len(delta) {
				return nil, bad
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
			continue
		}
		var off, n uint64
		for k := uint(0); k < 4; k++ {
			if op&(1<<k) != 0 {
				if len(delta) == 0 {
					return nil, bad
				}
				off |= uint64(delta[0]) << (8 * k)
				delta = delta[1:]
			}
		}
		for k := uint(0); k < 3; k++ {
			if op&(0x10<<k) != 0 {
				if len(delta) == 0 {
					return nil, bad
				}
				n |= uint64(delta[0]) << (8 * k)
				delta = delta[1:]
			}
		}
		if n == 0 {
			n = 0x10000
		}
		if off+n > uint64(len(base)) {
			return nil, bad
		}
		out = append(out, base[off:off+n]...)
	}
	if uint64(len(out)) != dstSize {
		return nil, bad
	}
	return out, nil
}
