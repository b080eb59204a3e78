package gitstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-mem/git-mem/internal/gitrefs"
	"github.com/git-mem/git-mem/memerr"
)

// errRefMoved: the ref no longer holds the value the caller built on.
var errRefMoved = gitrefs.ErrMoved

// refDB reads and updates refs (internal/gitrefs) and reports a ref git
// cannot read as memerr.ErrCorrupt, a lock kept by another writer as memerr.ErrBusy.
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
		return fmt.Errorf("%w: %s", memerr.ErrBusy, re.Msg)
	default:
		return fmt.Errorf("%w: %s", memerr.ErrCorrupt, re.Msg)
	}
}

// checkBudget fails when ctx has ended or ends too soon for a write to
// finish.
func checkBudget(ctx context.Context) error { return gitrefs.CheckBudget(ctx) }
