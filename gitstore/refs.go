package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/git-mem/git-mem/internal/gitrefs"
)

// errRefMoved: the ref no longer holds the value the caller built on.
var errRefMoved = gitrefs.ErrMoved

// refDB reads and updates refs (internal/gitrefs) and reports a ref git
// cannot read as ErrCorrupt, a lock kept by another writer as ErrBusy.
// Updates are compare-and-swap: the ref moves to newHash only if it still
// holds oldHash (zero meaning "absent").
type refDB struct{ db gitrefs.DB }

func (r refDB) read(name string) (Hash, error) {
	h, err := r.db.Read(name)
	return h, refError(err)
}

func (r refDB) update(name string, newHash, oldHash Hash) error {
	return refError(r.db.Update(name, newHash, oldHash))
}

func (r refDB) list(prefix string) (map[string]Hash, error) {
	refs, err := r.db.List(prefix)
	return refs, refError(err)
}

// refError gives gitrefs' errors gitstore's kinds.
func refError(err error) error {
	var re *gitrefs.Error
	switch {
	case !errors.As(err, &re):
		return err
	case re.Locked:
		return fmt.Errorf("%w: %s", ErrBusy, re.Msg)
	default:
		return fmt.Errorf("%w: %s", ErrCorrupt, re.Msg)
	}
}

// checkBudget fails when ctx has ended or ends too soon for a write to
// finish.
func checkBudget(ctx context.Context) error { return gitrefs.CheckBudget(ctx) }

// LockAbandoned reports whether the lock file at path was taken by a git-mem
// process of this machine that no longer runs. A lock without a holder line
// (git's own, or one being written this instant) is never abandoned here.
func LockAbandoned(path string) bool { return gitrefs.LockAbandoned(path) }

// CreateLock creates the lock file path exclusively and names this process
// as its holder. It fails with an error satisfying errors.Is(err,
// os.ErrExist) when another holds it. The lock counts as held (see
// WaitLocksReleased) until release is called.
func CreateLock(path string) (f *os.File, release func(), err error) {
	return gitrefs.CreateLock(path)
}

// BeforeFirstLock has fn called once, before this process creates its
// first lock file, so that what a process needs only while it holds one
// (catching signals, to release it before exiting) costs nothing until
// then. A main calls it before anything else runs.
func BeforeFirstLock(fn func()) { gitrefs.BeforeFirstLock(fn) }

// WaitLocksReleased waits until this process holds no lock file (ref locks,
// session note locks), or ctx ends; it reports whether none is held. A
// process that is about to exit calls it so that it never leaves a lock
// behind for the next writer.
func WaitLocksReleased(ctx context.Context) bool { return gitrefs.WaitLocksReleased(ctx) }
