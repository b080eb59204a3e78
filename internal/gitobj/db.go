package gitobj

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// DB is a repository's object database. Packs are encoded by go-git's
// format packages (packfile and idxfile), loose objects by git-mem; the
// database around them is git-mem's own, so that no binary
// links go-git's storage packages, whose configuration parser and URL
// tables every process would initialize before main (docs/architecture.md,
// storage).
type DB interface {
	// Read returns the object h, or an error wrapping ErrNotFound when the
	// database does not hold it.
	Read(h Hash) (*Object, error)
	// Write stores o and returns its hash.
	Write(o *Object) (Hash, error)
}

// MemDB holds objects in memory: the database of an in-memory
// repository, and the objects of a large change before they are written as
// one pack. It is also the storer go-git's pack encoder reads them from.
type MemDB struct {
	store *memStore
}

// memStore is a MemDB's objects, as go-git's pack encoder reads them: it
// implements storer.EncodedObjectStorer.
type memStore struct {
	mu      sync.Mutex
	objects map[plumbing.Hash]plumbing.EncodedObject
	order   []plumbing.Hash // in the order written: a pack keeps it
}

// NewMemDB is an empty object database held in memory.
func NewMemDB() *MemDB {
	return &MemDB{store: &memStore{objects: map[plumbing.Hash]plumbing.EncodedObject{}}}
}

// Read implements DB.
func (m *MemDB) Read(h Hash) (*Object, error) {
	o, err := m.store.EncodedObject(plumbing.AnyObject, plumbing.Hash(h))
	if err != nil {
		return nil, err
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	return &Object{Type: ObjectType(o.Type()), Data: data, hash: h, hashed: true}, nil
}

// Write implements DB.
func (m *MemDB) Write(o *Object) (Hash, error) {
	h, err := m.store.SetEncodedObject(o.encoded())
	return Hash(h), err
}

// NewEncodedObject implements storer.EncodedObjectStorer.
func (m *memStore) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// SetEncodedObject implements storer.EncodedObjectStorer.
func (m *memStore) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	h := o.Hash()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[h]; !ok {
		m.objects[h] = o
		m.order = append(m.order, h)
	}
	return h, nil
}

// EncodedObject implements storer.EncodedObjectStorer.
func (m *memStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	m.mu.Lock()
	o, ok := m.objects[h]
	m.mu.Unlock()
	if !ok || (t != plumbing.AnyObject && o.Type() != t) {
		return nil, errNotFound(Hash(h))
	}
	return o, nil
}

// IterEncodedObjects implements storer.EncodedObjectStorer.
func (m *memStore) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []plumbing.EncodedObject
	for _, h := range m.order {
		if o := m.objects[h]; t == plumbing.AnyObject || o.Type() == t {
			out = append(out, o)
		}
	}
	return storer.NewEncodedObjectSliceIter(out), nil
}

// HasEncodedObject implements storer.EncodedObjectStorer.
func (m *memStore) HasEncodedObject(h plumbing.Hash) error {
	_, err := m.EncodedObject(plumbing.AnyObject, h)
	return err
}

// EncodedObjectSize implements storer.EncodedObjectStorer.
func (m *memStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, err := m.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// AddAlternate implements storer.EncodedObjectStorer; objects held in
// memory have none.
func (m *memStore) AddAlternate(string) error {
	return errors.New("an in-memory object database has no alternates")
}

// hashes are the objects' hashes in the order they were written.
func (m *memStore) hashes() []plumbing.Hash {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]plumbing.Hash(nil), m.order...)
}

// DiskDB is the object database of a repository on disk: loose
// objects in objects/xx/, packs in objects/pack, and the databases that
// objects/info/alternates names.
type DiskDB struct {
	dir   string // the objects directory
	packs *packReader
	depth int // of alternates: git follows 5
	level int // zlib level of the loose objects it writes

	altOnce sync.Once
	alts    []*DiskDB
	// extra are alternates named besides info/alternates (git's
	// GIT_ALTERNATE_OBJECT_DIRECTORIES), read before them
	extra []string
}

// maxAlternateDepth is how deep alternates of alternates are followed, as
// git does.
const maxAlternateDepth = 5

// OpenDiskWithAlternates opens the object database of the objects directory
// dir; the loose objects it writes are zlib-compressed at level (-1 to 9, as
// git's core.looseCompression). It reads from the alternates too, before
// those objects/info/alternates names: what git's
// GIT_ALTERNATE_OBJECT_DIRECTORIES adds (a pre-receive hook's repository,
// beside the quarantine its objects directory is).
func OpenDiskWithAlternates(dir string, level int, alternates []string) *DiskDB {
	d := openDisk(dir, 0, level)
	d.extra = alternates
	return d
}

func openDisk(dir string, depth, level int) *DiskDB {
	return &DiskDB{dir: dir, packs: newPackReader(dir), depth: depth, level: level}
}

// Close releases the packs' files; the next read lists them again.
func (d *DiskDB) Close() {
	d.packs.close()
	for _, a := range d.alts {
		a.Close()
	}
}

// Read implements DB.
func (d *DiskDB) Read(h Hash) (*Object, error) {
	raw, err := d.readRaw(h)
	if err != nil {
		return nil, err
	}
	// the reader keeps delta bases it may hand out again: the caller gets
	// its own copy
	return &Object{Type: ObjectType(raw.typ), Data: bytes.Clone(raw.data), hash: h, hashed: true}, nil
}

func (d *DiskDB) readRaw(h Hash) (rawObject, error) {
	p := d.packs
	if p.isLoose(h) {
		if o, err := p.readLoose(h); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return o, err // read, or damaged: not to be looked for elsewhere
		}
	}
	o, err := p.read(h)
	if !errors.Is(err, errNotInPacks) {
		return o, err
	}
	// written loose since its directory was listed
	if o, err := p.readLoose(h); !errors.Is(err, fs.ErrNotExist) {
		return o, err
	}
	for _, a := range d.alternates() {
		if o, err := a.readRaw(h); err == nil {
			return o, nil
		}
	}
	return rawObject{}, errNotFound(h)
}

// alternates are the object databases objects/info/alternates names, one
// directory a line (relative to this objects directory, or absolute).
func (d *DiskDB) alternates() []*DiskDB {
	d.altOnce.Do(func() {
		if d.depth >= maxAlternateDepth {
			return
		}
		for _, dir := range d.extra {
			d.alts = append(d.alts, openDisk(dir, d.depth+1, d.level))
		}
		data, err := os.ReadFile(filepath.Join(d.dir, "info", "alternates"))
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(d.dir, line)
			}
			d.alts = append(d.alts, openDisk(filepath.Clean(line), d.depth+1, d.level))
		}
	})
	return d.alts
}

// Write stores o as a loose object: written to a temporary file in its
// fan-out directory and renamed into place, as git does, so that a reader
// never sees part of one and a killed writer leaves only a temporary file
// (which git gc removes). An object already there loose is only given a
// new modification time, as git does, so that a concurrent prune of old
// unreachable objects does not take it from under the commit about to
// name it.
func (d *DiskDB) Write(o *Object) (Hash, error) {
	h := o.Hash()
	hex := h.String()
	dir := filepath.Join(d.dir, hex[:2])
	final := filepath.Join(dir, hex[2:])
	now := time.Now()
	if os.Chtimes(final, now, now) == nil {
		return h, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return zeroHash, err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return zeroHash, err
	}
	// the compressor hands over a few hundred bytes at a time: at 100,000
	// memories a fan-out tree took some thirty writes, one is enough
	bw := looseBuffers.Get().(*bufio.Writer)
	bw.Reset(f)
	err = writeLoose(bw, o, d.level)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	looseBuffers.Put(bw)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return zeroHash, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return zeroHash, err
	}
	if err := placeReadOnly(f.Name(), final); err != nil {
		if _, serr := os.Stat(final); serr == nil {
			return h, nil // written meanwhile by another process: the same content
		}
		return zeroHash, err
	}
	return h, nil
}

// writeLoose writes o to w in the loose object format: "type size\0" and
// the content, zlib-compressed at level.
func writeLoose(w io.Writer, o *Object, level int) error {
	pool := &zlibWriters[level+1]
	zw, _ := pool.Get().(*zlib.Writer)
	if zw == nil {
		var err error
		if zw, err = zlib.NewWriterLevel(w, level); err != nil {
			return err
		}
	} else {
		zw.Reset(w)
	}
	defer pool.Put(zw)
	if _, err := fmt.Fprintf(zw, "%s %d\x00", o.Type, o.Size()); err != nil {
		return err
	}
	_, err := zw.Write(o.Data)
	return errors.Join(err, zw.Close())
}

// looseBuffers buffer a loose object's file while it is written.
var looseBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

// zlibWriters keep compressors by level (index level+1) between objects:
// setting one up costs more than compressing a memory.
var zlibWriters [11]sync.Pool

// placeReadOnly makes the temporary file tmp read-only, as git's object
// files are, and renames it to path; tmp is removed when that fails.
func placeReadOnly(tmp, path string) error {
	err := os.Chmod(tmp, 0o444)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// WritePack writes the objects of src as one pack and its index in
// objects/pack, named by the pack's checksum as git names them: the pack is
// in place before its index, so a reader that finds the index finds the
// pack.
func (d *DiskDB) WritePack(src *MemDB) error {
	hashes := src.store.hashes()
	if len(hashes) == 0 {
		return nil
	}
	dir := filepath.Join(d.dir, "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pack, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return err
	}
	defer os.Remove(pack.Name()) // renamed away once written
	// no delta search: the pack is written once and git gc repacks it
	sum, err := packfile.NewEncoder(pack, src.store, false).Encode(hashes, 0)
	var idx *idxfile.MemoryIndex
	if err == nil {
		idx, err = indexPack(pack)
	}
	if err = errors.Join(err, pack.Close()); err != nil {
		return err
	}
	itmp, err := os.CreateTemp(dir, "tmp_idx_")
	if err != nil {
		return err
	}
	defer os.Remove(itmp.Name())
	_, err = idxfile.NewEncoder(itmp).Encode(idx)
	if err = errors.Join(err, itmp.Close()); err != nil {
		return err
	}
	base := filepath.Join(dir, "pack-"+sum.String())
	if err := placeReadOnly(pack.Name(), base+".pack"); err != nil {
		return err
	}
	if err := placeReadOnly(itmp.Name(), base+".idx"); err != nil {
		return err
	}
	d.packs.close()
	return nil
}

// indexPack reads the pack just written to f and returns its index.
func indexPack(f *os.File) (*idxfile.MemoryIndex, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	w := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(f), w)
	if err != nil {
		return nil, err
	}
	if _, err := parser.Parse(); err != nil {
		return nil, err
	}
	return w.Index()
}
