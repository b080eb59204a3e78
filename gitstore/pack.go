package gitstore

import "github.com/git-mem/git-mem/internal/gitobj"

// packAtLeast is the number of documents from which a change writes its
// objects as one pack instead of one loose file each: an import of 10,000
// memories would otherwise create over 10,000 files, which costs more than
// everything else it does.
const packAtLeast = 256

// packSink returns where a large change collects its objects, or nil when
// the object database takes no packs (a repository held in memory).
func (r *Repo) packSink() *gitobj.MemDB {
	if _, ok := r.objects.(*gitobj.DiskDB); !ok {
		return nil
	}
	return gitobj.NewMemDB()
}

// writePack writes every object of sink into the object database as one
// pack (and its index), before the ref that names them moves.
func (r *Repo) writePack(sink *gitobj.MemDB) error {
	return r.objects.(*gitobj.DiskDB).WritePack(sink)
}
