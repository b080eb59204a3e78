package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// packAtLeast is the number of documents from which a change writes its
// objects as one pack instead of one loose file each: an import of 10,000
// memories would otherwise create over 10,000 files, which costs more than
// everything else it does.
const packAtLeast = 256

// packSink returns where a large change collects its objects, or nil when
// the object database takes no packs (a repository held in memory).
func (r *Repo) packSink() *memory.Storage {
	if _, ok := r.objects.(storer.PackfileWriter); !ok {
		return nil
	}
	return memory.NewStorage()
}

// writePack writes every object of sink into the object database as one
// pack (and its index), before the ref that names them moves.
func (r *Repo) writePack(sink *memory.Storage) error {
	var hashes []plumbing.Hash
	iter, err := sink.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		return err
	}
	if err := iter.ForEach(func(o plumbing.EncodedObject) error { hashes = append(hashes, o.Hash()); return nil }); err != nil {
		return err
	}
	pw, err := r.objects.(storer.PackfileWriter).PackfileWriter()
	if err != nil {
		return err
	}
	// no delta search: the pack is written once and git gc repacks it
	if _, err := packfile.NewEncoder(pw, sink, false).Encode(hashes, 0); err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}
