package gitstore

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
)

// memoriesDir is the root tree entry holding the fan-out of memory documents.
const memoriesDir = "memories"

// blobName is the file name of a memory document inside its fan-out directory.
func blobName(id string) string { return id + ".json" }

// fanout is the directory a memory id lives in: its first two hex digits.
func fanout(id string) string { return Clip(id, 2) }

// memoryPath is the path of a memory document in the memory tree.
func memoryPath(id string) string { return memoriesDir + "/" + fanout(id) + "/" + blobName(id) }

// wrapObjectErr turns a missing or unreadable object into memerr.ErrCorrupt with advice.
func wrapObjectErr(what string, h Hash, err error) error {
	if errors.Is(err, gitobj.ErrNotFound) {
		return &memerr.DamagedError{What: what, Object: h.String(), Missing: true, Err: err}
	}
	return &memerr.DamagedError{What: what, Object: h.String(), Err: err}
}

// snapshot is the memory tree of one commit, read lazily.
type snapshot struct {
	repo   *Repo
	commit Hash     // zero for an empty store
	root   *gitTree // nil for an empty store
	mems   *gitTree // nil when there are no memories
	fans   map[string]*gitTree
	pack   *gitobj.MemDB // objects of a large change, written as one pack
}

// object reads one object of type t (gitobj.AnyObject: of any type):
// another type is not found. An object database on disk caches its list of
// packs; a concurrent git gc may pack loose objects and delete the old
// packs under it, so on a miss the database is reopened and the read
// retried, as git itself re-scans its packs before declaring an object
// missing.
func (r *Repo) object(t gitobj.ObjectType, h Hash) (*gitobj.Object, error) {
	po, err := r.objects.Read(h)
	for retry := 0; err != nil && !errors.As(err, new(*gitobj.TooLargeError)) && r.CommonDir != "" && retry < 3; retry++ {
		if retry > 0 {
			time.Sleep(time.Duration(retry) * 5 * time.Millisecond)
		}
		r.reopenObjects()
		po, err = r.objects.Read(h)
	}
	if errors.Is(err, gitobj.ErrNotFound) && r.fetchMissing(h) {
		r.reopenObjects()
		po, err = r.objects.Read(h)
	}
	if err == nil && t != gitobj.AnyObject && po.Type != t {
		return nil, errNotFound(h)
	}
	return po, err
}

// readTree reads and decodes a tree. The tree is decoded here rather than
// by go-git, which hashes the content it was asked for by hash and
// allocates a reader per entry: a session's first hook after a write reads
// the fan-out trees of both commits, hundreds of entries each.
func (r *Repo) readTree(h Hash) (*gitTree, error) {
	if t := r.trees.get(h); t != nil {
		return t, nil
	}
	po, err := r.object(gitobj.TreeObject, h)
	if err != nil {
		return nil, wrapObjectErr("tree", h, err)
	}
	entries, err := gitobj.DecodeTree(po.Data)
	if err != nil {
		return nil, wrapObjectErr("tree", h, err)
	}
	t := &gitTree{Hash: h, Entries: entries}
	r.trees.put(t)
	return t, nil
}

// treeCache keeps the trees a process read or wrote last, decoded. A write
// reads the tip's root, memories and fan-out trees, writes their new
// versions, and then diffs the two commits to bring the recall snapshot
// forward, which reads all of them again; the next write in a long-lived
// process (the MCP server) starts from the trees the last one wrote, so
// the repositories a process opens on one object directory share one
// cache (treeCacheOf): the server opens the repository afresh for each
// call. At 100,000 memories each of these trees is hundreds of entries,
// inflated from a deltified pack. Trees are named by their content, so an
// entry never goes stale; callers never change a tree's entries.
type treeCache struct {
	mu      sync.Mutex
	trees   map[Hash]*gitTree
	entries int
}

// maxCachedTreeEntries bounds the cache, at about 70 bytes an entry (9 MB
// full): enough for every fan-out tree of 100,000 memories, which a
// long-lived process writing to such a store reads one after the other.
// When full, it starts over.
const maxCachedTreeEntries = 1 << 17

// treeCaches are the tree caches of the object directories this process
// opened, at most maxTreeCaches of them (then it starts over).
var treeCaches struct {
	mu    sync.Mutex
	byDir map[string]*treeCache
}

const maxTreeCaches = 8

// treeCacheOf returns the tree cache of the object directory dir.
func treeCacheOf(dir string) *treeCache {
	treeCaches.mu.Lock()
	defer treeCaches.mu.Unlock()
	if c := treeCaches.byDir[dir]; c != nil {
		return c
	}
	if len(treeCaches.byDir) >= maxTreeCaches || treeCaches.byDir == nil {
		treeCaches.byDir = map[string]*treeCache{}
	}
	c := &treeCache{}
	treeCaches.byDir[dir] = c
	return c
}

func (c *treeCache) get(h Hash) *gitTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trees[h]
}

func (c *treeCache) put(t *gitTree) {
	if len(t.Entries) > maxCachedTreeEntries {
		return // would empty the cache and still not fit
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.trees[Hash(t.Hash)]; ok {
		return
	}
	if c.entries+len(t.Entries) > maxCachedTreeEntries || c.trees == nil {
		c.trees, c.entries = map[Hash]*gitTree{}, 0
	}
	c.trees[Hash(t.Hash)] = t
	c.entries += len(t.Entries)
}

// putWritten keeps a tree just written from entries (sorted by
// treeObject), which its writer may go on changing.
func (c *treeCache) putWritten(h Hash, entries []treeEntry) {
	c.put(&gitTree{Hash: h, Entries: slices.Clone(entries)})
}

func (r *Repo) readCommit(h Hash) (*gitCommit, error) {
	o, err := r.object(gitobj.CommitObject, h)
	if errors.Is(err, gitobj.ErrNotFound) {
		// a ref set by hand to a blob or a tree is no missing commit
		if other, err2 := r.objects.Read(h); err2 == nil {
			return nil, fmt.Errorf("%w: %s is a %s, not a commit: a memory ref was set to the wrong object; point it back at its last commit (git reflog, then git update-ref)", memerr.ErrCorrupt, h, other.Type)
		}
	}
	if err != nil {
		return nil, wrapObjectErr("commit", h, err)
	}
	if o.Type != gitobj.CommitObject {
		return nil, wrapObjectErr("commit", h, gitobj.ErrInvalidType)
	}
	c, err := gitobj.DecodeCommit(h, o.Data)
	if err != nil {
		return nil, wrapObjectErr("commit", h, fmt.Errorf("%w: %w", memerr.ErrCorrupt, err))
	}
	return c, nil
}

func (r *Repo) snapshotAt(commit Hash) (*snapshot, error) {
	s := &snapshot{repo: r, commit: commit, fans: map[string]*gitTree{}}
	if commit.IsZero() {
		return s, nil
	}
	c, err := r.readCommit(commit)
	if err != nil {
		return nil, err
	}
	if s.root, err = r.readTree(Hash(c.TreeHash)); err != nil {
		return nil, err
	}
	if e := findEntry(s.root, memoriesDir); e != nil {
		if s.mems, err = r.readTree(Hash(e.Hash)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func findEntry(t *gitTree, name string) *treeEntry {
	if t == nil {
		return nil
	}
	i := sort.Search(len(t.Entries), func(i int) bool { return sortName(&t.Entries[i]) >= name })
	for ; i < len(t.Entries); i++ {
		if t.Entries[i].Name == name {
			return &t.Entries[i]
		}
		if !strings.HasPrefix(t.Entries[i].Name, name) {
			break
		}
	}
	return nil
}

// fan returns the fan-out tree for a two-digit prefix, nil when absent.
func (s *snapshot) fan(prefix string) (*gitTree, error) {
	if t, ok := s.fans[prefix]; ok {
		return t, nil
	}
	var t *gitTree
	if e := findEntry(s.mems, prefix); e != nil && e.Mode == gitobj.ModeDir {
		var err error
		if t, err = s.repo.readTree(Hash(e.Hash)); err != nil {
			return nil, err
		}
	}
	s.fans[prefix] = t
	return t, nil
}

// blobHash returns the hash of a memory's document, zero when absent.
func (s *snapshot) blobHash(id string) (Hash, error) {
	t, err := s.fan(fanout(id))
	if err != nil || t == nil {
		return zeroHash, err
	}
	if e := findEntry(t, blobName(id)); e != nil {
		return Hash(e.Hash), nil
	}
	return zeroHash, nil
}

// get reads one memory by full id; memerr.ErrNotFound when absent.
func (s *snapshot) get(id string) (*Memory, error) {
	h, err := s.blobHash(id)
	if err != nil {
		return nil, err
	}
	if h.IsZero() {
		return nil, fmt.Errorf("%w: no memory %s", memerr.ErrNotFound, id)
	}
	m, err := s.repo.readMemory(h, id)
	var de *DocumentError
	if errors.As(err, &de) {
		s.repo.noteSkipped(de)
	}
	return m, err
}

func (r *Repo) readBlob(h Hash) ([]byte, error) {
	o, err := r.object(gitobj.BlobObject, h)
	if err != nil {
		return nil, wrapObjectErr("memory document", h, err)
	}
	return o.Data, nil
}

// readMemory reads and checks the document of the memory with the full id
// (its file name). An invalid document is a *DocumentError; a missing or
// unreadable object is memerr.ErrCorrupt.
func (r *Repo) readMemory(h Hash, id string) (*Memory, error) {
	o, err := r.object(gitobj.BlobObject, h)
	if tl := (*gitobj.TooLargeError)(nil); errors.As(err, &tl) {
		// a teammate's oversized document is skipped like any invalid one
		return nil, &DocumentError{ID: id, Blob: h, Reason: fmt.Sprintf("%d bytes, over the %d-byte maximum", tl.Size, maxDocumentBytes)}
	}
	if err != nil {
		return nil, wrapObjectErr("memory document", h, err)
	}
	if o.Size() > maxDocumentBytes {
		return nil, &DocumentError{ID: id, Blob: h, Reason: fmt.Sprintf("%d bytes, over the %d-byte maximum", o.Size(), maxDocumentBytes)}
	}
	m, err := validateDocument(o.Data, id)
	if err != nil {
		return nil, &DocumentError{ID: id, Blob: h, Reason: strings.TrimPrefix(err.Error(), memerr.ErrInvalid.Error()+": ")}
	}
	return m, nil
}

// noteSkipped records an invalid document a read skipped, for Skipped.
func (r *Repo) noteSkipped(e *DocumentError) {
	r.skipMu.Lock()
	defer r.skipMu.Unlock()
	if r.skipped == nil {
		r.skipped = map[Hash]*DocumentError{}
	}
	r.skipped[e.Blob] = e
}

// Skipped returns the invalid documents that reads of this repository have
// skipped so far, by path: commands warn about them.
func (r *Repo) Skipped() []*DocumentError {
	r.skipMu.Lock()
	defer r.skipMu.Unlock()
	out := make([]*DocumentError, 0, len(r.skipped))
	for _, e := range r.skipped {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Blob.String() < out[j].Blob.String()
	})
	return out
}

// idsWithPrefix lists the ids starting with prefix (at least two hex digits),
// reading tree entries only.
func (s *snapshot) idsWithPrefix(prefix string) ([]string, error) {
	if len(prefix) < 2 {
		return nil, nil
	}
	t, err := s.fan(prefix[:2])
	if err != nil || t == nil {
		return nil, err
	}
	var ids []string
	for _, e := range t.Entries {
		if id, ok := docID(prefix[:2], e.Name); ok && strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// entries calls fn with the id and blob hash of every memory, in id order.
func (s *snapshot) entries(fn func(id string, h Hash) error) error {
	if s.mems == nil {
		return nil
	}
	for _, fe := range s.mems.Entries {
		if fe.Mode != gitobj.ModeDir {
			continue
		}
		t, err := s.fan(fe.Name)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			if id, ok := docID(fe.Name, e.Name); ok {
				if err := fn(id, Hash(e.Hash)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// docID is the id of a document file name in a fan-out directory: valid
// only for "<id>.json" with a well-formed id that starts with the
// directory's two digits (other files are not memories and are ignored).
func docID(fan, name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || !ValidID(id) || !strings.HasPrefix(id, fan) {
		return "", false
	}
	return id, true
}

// all reads every valid memory of the snapshot. Invalid documents are
// skipped (and recorded: Repo.Skipped); a missing object is an error.
func (s *snapshot) all() ([]*Memory, error) {
	var out []*Memory
	err := s.entries(func(id string, h Hash) error {
		m, err := s.repo.readMemory(h, id)
		var de *DocumentError
		if errors.As(err, &de) {
			s.repo.noteSkipped(de)
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// writeObject stores an encoded object and returns its hash. A loose object
// is written to a temporary file and renamed into its fan-out directory; a
// concurrent git gc removes fan-out directories it emptied, so the rename can
// find its directory gone: like git, try again (the directory is re-created).
func (r *Repo) writeObject(o *gitobj.Object) (Hash, error) {
	h, err := r.objects.Write(o)
	for retry := 0; err != nil && errors.Is(err, os.ErrNotExist) && retry < 5; retry++ {
		time.Sleep(time.Duration(retry+1) * time.Millisecond)
		h, err = r.objects.Write(o)
	}
	return h, err
}

func (r *Repo) writeBlob(data []byte) (Hash, error) {
	o, err := r.blobObject(data)
	if err != nil {
		return zeroHash, err
	}
	return r.writeObject(o)
}

func (r *Repo) blobObject(data []byte) (*gitobj.Object, error) {
	return r.encodedObject(gitobj.BlobObject, data)
}

func (r *Repo) writeTree(entries []treeEntry) (Hash, error) {
	o, err := r.treeObject(entries)
	if err != nil {
		return zeroHash, err
	}
	h, err := r.writeObject(o)
	if err == nil {
		r.trees.putWritten(h, entries)
	}
	return h, err
}

func (r *Repo) treeObject(entries []treeEntry) (*gitobj.Object, error) {
	gitobj.SortTreeEntries(entries)
	data, err := gitobj.EncodeTree(entries)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", memerr.ErrInvalid, err)
	}
	return r.encodedObject(gitobj.TreeObject, data)
}

// encodedObject is an object of type typ and content data, to be written.
func (r *Repo) encodedObject(typ gitobj.ObjectType, data []byte) (*gitobj.Object, error) {
	return gitobj.NewObject(typ, data), nil
}

// put stores an object written by a change built on this snapshot: in its
// pack when the change writes one (see writePack), else loose.
func (s *snapshot) put(o *gitobj.Object) (Hash, error) {
	if s.pack != nil {
		return s.pack.Write(o)
	}
	return s.repo.writeObject(o)
}

func (s *snapshot) writeBlob(data []byte) (Hash, error) {
	o, err := s.repo.blobObject(data)
	if err != nil {
		return zeroHash, err
	}
	return s.put(o)
}

func (s *snapshot) writeTree(entries []treeEntry) (Hash, error) {
	o, err := s.repo.treeObject(entries)
	if err != nil {
		return zeroHash, err
	}
	h, err := s.put(o)
	if err == nil {
		// the diff that brings the recall snapshot forward, and the next
		// write, read it again
		s.repo.trees.putWritten(h, entries)
	}
	return h, err
}

// setEntry returns entries with name set to (mode, h), or removed when h is zero.
func setEntry(entries []treeEntry, name string, mode gitobj.FileMode, h Hash) []treeEntry {
	out := make([]treeEntry, 0, len(entries)+1)
	for _, e := range entries {
		if e.Name != name {
			out = append(out, e)
		}
	}
	if !h.IsZero() {
		out = append(out, treeEntry{Name: name, Mode: mode, Hash: h})
	}
	return out
}

// buildTree writes the root tree of s with the given documents replaced
// (nil data deletes). Only the touched fan-out trees, the memories tree and the
// root are rewritten: the cost of a write grows with the size of one fan-out
// directory, not with the store.
func (s *snapshot) buildTree(changes map[string][]byte) (Hash, error) {
	hashes := make(map[string]Hash, len(changes))
	for id, data := range changes {
		h := zeroHash
		if data != nil {
			var err error
			if h, err = s.writeBlob(data); err != nil {
				return zeroHash, err
			}
		}
		hashes[id] = h
	}
	return s.buildTreeFromHashes(hashes, nil)
}

// writeRoot writes the memories tree with the given fan-out entries and a root
// tree that keeps the snapshot's other root entries.
func (s *snapshot) writeRoot(memEntries []treeEntry) (Hash, error) {
	var rootEntries []treeEntry
	if s.root != nil {
		rootEntries = append(rootEntries, s.root.Entries...)
	}
	mh := zeroHash
	if len(memEntries) > 0 {
		var err error
		if mh, err = s.writeTree(memEntries); err != nil {
			return zeroHash, err
		}
	}
	rootEntries = setEntry(rootEntries, memoriesDir, gitobj.ModeDir, mh)
	return s.writeTree(rootEntries)
}
