package embedding

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-mem/git-mem/internal/lockfile"
)

// A vector file is a sequence of records, each written by one write(2) on
// a file opened with O_APPEND, so that concurrent writers (the CLI, a hook,
// the MCP server) never interleave. A record is
//
//	magic "GMV1" | uint32 body length | body | uint32 CRC-32 (IEEE) of body
//
// and its body
//
//	[32]byte sha256 of the text | uint16 key length | key | uint16 dim |
//	float32 1/|v| | int8 × dim
//
// all little-endian. The vector v is the unit vector scaled so that its
// largest component is ±127, stored with its inverse length, so that a
// reader copies it as it is. A reader
// skips a damaged or torn record by looking for the next magic. Later
// records for a key replace earlier ones; Prune rewrites the file with the
// live records only.
var magic = [4]byte{'G', 'M', 'V', '1'}

const maxBody = 64 + 1<<16 + maxDim

// Hash is the sha256 of an embedded text: a vector's key with the model.
type Hash [32]byte

// HashOf hashes a text as the cache keys it.
func HashOf(text string) Hash { return sha256.Sum256([]byte(text)) }

// record is one decoded record.
type record struct {
	hash Hash
	key  string
	inv  float32 // 1 / |vec|
	vec  []byte  // int8 components
}

// quantize turns a unit vector into a record's int8 components (as bytes)
// and their inverse length.
func quantize(v []float32) ([]byte, float32) {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	q := make([]byte, len(v))
	if m == 0 {
		return q, 0
	}
	var ss int64
	for i, x := range v {
		c := int8(math.Round(float64(x / m * 127)))
		q[i] = byte(c)
		ss += int64(c) * int64(c)
	}
	if ss == 0 {
		return q, 0
	}
	return q, float32(1 / math.Sqrt(float64(ss)))
}

func encodeRecord(buf *bytes.Buffer, r record) {
	body := make([]byte, 0, 32+2+len(r.key)+2+4+len(r.vec))
	body = append(body, r.hash[:]...)
	body = binary.LittleEndian.AppendUint16(body, uint16(len(r.key)))
	body = append(body, r.key...)
	body = binary.LittleEndian.AppendUint16(body, uint16(len(r.vec)))
	body = binary.LittleEndian.AppendUint32(body, math.Float32bits(r.inv))
	body = append(body, r.vec...)
	buf.Write(magic[:])
	binary.Write(buf, binary.LittleEndian, uint32(len(body)))
	buf.Write(body)
	binary.Write(buf, binary.LittleEndian, crc32.ChecksumIEEE(body))
}

// decodeRecords calls fn for every intact record of data and returns how
// many bytes were consumed (a torn record at the end is left for later).
func decodeRecords(data []byte, fn func(record)) int {
	p := 0
	for p < len(data) {
		if len(data)-p < 8 {
			return p
		}
		if !bytes.Equal(data[p:p+4], magic[:]) {
			next := bytes.Index(data[p+1:], magic[:])
			if next < 0 {
				return p
			}
			p += 1 + next
			continue
		}
		n := int(binary.LittleEndian.Uint32(data[p+4:]))
		if n < 36 || n > maxBody {
			p++ // not a record: look for the next one
			continue
		}
		if len(data)-p < 8+n+4 {
			// still being written, or torn by a writer that died: torn when
			// a whole record follows it
			if q := nextIntact(data, p+4); q > 0 {
				p = q
				continue
			}
			return p
		}
		body := data[p+8 : p+8+n]
		if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[p+8+n:]) {
			p++
			continue
		}
		if r, ok := parseBody(body); ok {
			fn(r)
		}
		p += 8 + n + 4
	}
	return p
}

// nextIntact is the offset of the first complete, intact record at or
// after from, or -1.
func nextIntact(data []byte, from int) int {
	for from < len(data) {
		i := bytes.Index(data[from:], magic[:])
		if i < 0 {
			return -1
		}
		q := from + i
		if len(data)-q >= 8 {
			n := int(binary.LittleEndian.Uint32(data[q+4:]))
			if n >= 36 && n <= maxBody && len(data)-q >= 8+n+4 &&
				crc32.ChecksumIEEE(data[q+8:q+8+n]) == binary.LittleEndian.Uint32(data[q+8+n:]) {
				return q
			}
		}
		from = q + 1
	}
	return -1
}

func parseBody(b []byte) (record, bool) {
	var r record
	copy(r.hash[:], b)
	b = b[32:]
	kl := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	if len(b) < kl+2 {
		return r, false
	}
	r.key = string(b[:kl])
	b = b[kl:]
	dim := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	if dim == 0 || len(b) != 4+dim {
		return r, false
	}
	r.inv = math.Float32frombits(binary.LittleEndian.Uint32(b))
	r.vec = b[4:] // kept as it is: the buffer is not reused
	return r, true
}

// cache is a vector file read into memory: the live record of each key.
type cache struct {
	dim    int
	keys   []string
	hashes []Hash
	inv    []float32 // 1 / |vec|
	// vecs are the slots' int8 components, slices of the buffers the file
	// was read into (never copied: a cache of 100,000 vectors is ~80 MiB)
	vecs   [][]byte
	byKey  map[string]int
	byHash map[Hash]int

	// what was read of the file, to read only what was appended since
	info os.FileInfo
	off  int64
}

func newCache() *cache {
	return &cache{byKey: map[string]int{}, byHash: map[Hash]int{}}
}

func (c *cache) add(r record) {
	if c.dim == 0 {
		c.dim = len(r.vec)
	}
	if len(r.vec) != c.dim {
		return // another dimension under the same model name: ignored
	}
	inv := r.inv
	slot, ok := c.byKey[r.key]
	if !ok {
		slot = len(c.keys)
		c.keys = append(c.keys, r.key)
		c.hashes = append(c.hashes, r.hash)
		c.inv = append(c.inv, inv)
		c.vecs = append(c.vecs, r.vec)
		c.byKey[r.key] = slot
	} else {
		c.hashes[slot], c.inv[slot], c.vecs[slot] = r.hash, inv, r.vec
	}
	c.byHash[r.hash] = slot
}

// vector is the slot's stored vector.
func (c *cache) vector(slot int) []byte { return c.vecs[slot] }

// opened keeps each vector file read by this process, so that a
// long-running one (the MCP server) reads only what was appended since.
var opened struct {
	sync.Mutex
	m map[string]*cache
}

// load returns path's records, reading only what was appended since the
// last load when the file is the same one (Prune replaces it).
func load(path string) (*cache, error) {
	opened.Lock()
	defer opened.Unlock()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		delete(opened.m, path)
		return newCache(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c := opened.m[path]
	if c == nil || !os.SameFile(c.info, st) || st.Size() < c.off {
		c = newCache()
	}
	if st.Size() > c.off {
		if _, err := f.Seek(c.off, io.SeekStart); err != nil {
			return nil, err
		}
		data := make([]byte, st.Size()-c.off)
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, err
		}
		c.off += int64(decodeRecords(data, c.add))
	}
	c.info = st
	if opened.m == nil {
		opened.m = map[string]*cache{}
	}
	opened.m[path] = c
	return c, nil
}

// forget drops what this process read of path.
func forget(path string) {
	opened.Lock()
	delete(opened.m, path)
	opened.Unlock()
}

// appendRecords adds records to path with one write.
func appendRecords(path string, rs []record) error {
	if len(rs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range rs {
		encodeRecord(&buf, r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(buf.Bytes())
	return errors.Join(werr, f.Close())
}

// Prune rewrites every vector file under dir (every model's) with only the
// records keep accepts, the live one of each key: after a purge, a
// forgotten memory's vector must not outlive its text. A missing directory
// is nothing to do. It needs no endpoint.
func Prune(dir string, keep func(key string, h Hash) bool) (removed int, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, de := range ents {
		if !strings.HasSuffix(de.Name(), cacheExt) {
			continue
		}
		path := filepath.Join(dir, de.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return removed, err
		}
		live := map[string]record{}
		var order []string
		total := 0
		decodeRecords(data, func(r record) {
			total++
			if _, ok := live[r.key]; !ok {
				order = append(order, r.key)
			}
			live[r.key] = r
		})
		var buf bytes.Buffer
		kept := 0
		for _, k := range order {
			if r := live[k]; keep(k, r.hash) {
				encodeRecord(&buf, r)
				kept++
			}
		}
		removed += total - kept
		if total == kept && len(live) == total {
			continue
		}
		if err := lockfile.WriteAtomic(path, buf.Bytes(), 0o600); err != nil {
			return removed, fmt.Errorf("rewriting the vector cache: %w", err)
		}
		forget(path)
	}
	return removed, nil
}
