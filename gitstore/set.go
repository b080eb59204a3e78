package gitstore

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// Set is every store a command in one directory can see: the repository's
// project and private refs, and the personal store. Reads cover them all and
// label each memory with its scope; a write goes to one of them.
type Set struct {
	// Repo is the repository of the directory; nil outside any repository.
	Repo *Repo
	// Personal is the personal store; nil until it exists (it is created on
	// the first write to it).
	Personal *Repo
	// PersonalCreated reports that the last Writable call created the personal store.
	PersonalCreated bool
	// Linked are the linked stores (a team's memory shared across its
	// repositories, package linkstore), read after the others, each with the
	// scope "org:NAME"; a read-only one refuses writes.
	Linked []*Store
	// IDs, when set, answers like Store.IDs for any store of the set: a
	// caller that keeps every store's ids at their tips (the recall
	// snapshot, package index) spares ShortIDs the trees.
	IDs func(st *Store, tip Hash) (near func(id string) ([]string, error), ok bool)
}

// OpenSet opens the stores seen from dir. Outside any repository only the
// personal store is there; that is not an error.
func OpenSet(dir string) (*Set, error) { return openSet(dir, Open) }

// OpenSetIn is OpenSet for the repository containing dir by its files
// alone (OpenIn).
func OpenSetIn(dir string) (*Set, error) { return openSet(dir, OpenIn) }

func openSet(dir string, open func(string) (*Repo, error)) (*Set, error) {
	s := &Set{}
	r, err := open(dir)
	switch {
	case err == nil:
		s.Repo = r
	case errors.Is(err, memerr.ErrNoRepo):
	default:
		return nil, err
	}
	p, _, err := OpenPersonal(false)
	switch {
	case err == nil:
		s.Personal = p
	case errors.Is(err, memerr.ErrEmptyStore):
	default:
		return nil, err
	}
	return s, nil
}

// NewSet returns a set over a given repository (tests use an in-memory one).
func NewSet(repo *Repo) *Set { return &Set{Repo: repo} }

// InRepo reports whether the set has a repository; outside one, the personal
// store stands in for the project.
func (s *Set) InRepo() bool { return s.Repo != nil }

// Stores returns the readable stores in reading order: project, private,
// personal, then the linked stores.
func (s *Set) Stores() []*Store {
	var out []*Store
	if s.Repo != nil {
		out = append(out, NewStore(s.Repo, RefMain, ScopeProject), NewStore(s.Repo, RefPrivate, ScopePrivate))
	}
	if s.Personal != nil {
		out = append(out, NewStore(s.Personal, RefMain, ScopePersonal))
	}
	return append(out, s.Linked...)
}

// linkedStore returns the linked store of a scope ("org:NAME"), nil when
// the set has none.
func (s *Set) linkedStore(scope Scope) *Store {
	for _, st := range s.Linked {
		if st.Scope == scope {
			return st
		}
	}
	return nil
}

// Writable returns the store to write to for a scope, creating the personal
// store when it is the target and does not exist yet. Outside a repository,
// the project scope falls back to the personal store.
func (s *Set) Writable(scope Scope) (*Store, error) {
	s.PersonalCreated = false
	if scope.Linked() {
		st := s.linkedStore(scope)
		if st == nil {
			return nil, fmt.Errorf("%w: no linked store %s", memerr.ErrNotLinked, scope)
		}
		if st.ReadOnly {
			return nil, &memerr.ReadOnlyError{Scope: string(scope)}
		}
		return st, nil
	}
	if s.Repo != nil && scope == ScopeProject {
		return NewStore(s.Repo, RefMain, ScopeProject), nil
	}
	if scope == ScopePrivate {
		if s.Repo == nil {
			return nil, &memerr.NoRepoError{Scope: string(ScopePrivate)}
		}
		return NewStore(s.Repo, RefPrivate, ScopePrivate), nil
	}
	if s.Personal == nil {
		p, created, err := OpenPersonal(true)
		if err != nil {
			return nil, err
		}
		s.Personal, s.PersonalCreated = p, created
	}
	return NewStore(s.Personal, RefMain, ScopePersonal), nil
}

// Find resolves an id or unique prefix across the stores. A memory whose
// document is invalid is reported as a *DocumentError (with its store).
func (s *Set) Find(prefix string) (*Store, *Memory, error) {
	st, id, err := s.Locate(prefix)
	if err != nil {
		return nil, nil, err
	}
	rd, err := st.Read()
	if err != nil {
		return nil, nil, err
	}
	m, err := rd.Get(id)
	if err != nil {
		return st, nil, err
	}
	return st, m, nil
}

// Locate resolves an id or unique prefix across the stores to a store and a
// full id, from the file names of the memory trees: it finds a memory whose
// document is invalid too (git mem forget and history use it).
func (s *Set) Locate(prefix string) (*Store, string, error) {
	if _, err := NormalizePrefix(prefix); err != nil {
		return nil, "", err
	}
	type hit struct {
		store *Store
		rd    *Reader
		id    string
	}
	var hits []hit
	for _, st := range s.Stores() {
		rd, err := st.Read()
		if err != nil {
			return nil, "", err
		}
		ids, err := rd.resolve(prefix)
		if err != nil {
			return nil, "", err
		}
		for _, id := range ids {
			hits = append(hits, hit{st, rd, id})
		}
	}
	switch len(hits) {
	case 0:
		return nil, "", fmt.Errorf("%w: no memory with id %q", memerr.ErrNoMemory, prefix)
	case 1:
		return hits[0].store, hits[0].id, nil
	}
	amb := &AmbiguousError{Prefix: prefix}
	for _, h := range hits {
		m, err := h.rd.Get(h.id)
		var de *DocumentError
		if errors.As(err, &de) {
			m = &Memory{ID: h.id, Type: TypeInvalid, Text: InvalidText}
		} else if err != nil {
			return nil, "", err
		}
		amb.Candidates = append(amb.Candidates, *m)
	}
	return nil, "", amb
}

// Filter selects memories for List.
type Filter struct {
	Type string
	// All includes superseded and expired memories.
	All bool
	// AsOf, when set, reads each store as it was at that time (transaction time).
	AsOf *time.Time
	// ValidAt, when set, keeps the memories that were true at that time,
	// superseded ones included (valid time).
	ValidAt *time.Time
	// Now is the time used to decide what is current; zero means time.Now().
	Now time.Time
}

// Keep reports whether a memory passes the filter.
func (f Filter) Keep(m *Memory) bool {
	if f.Type != "" && m.Type != f.Type {
		return false
	}
	if f.ValidAt != nil {
		return m.Current(*f.ValidAt)
	}
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	return f.All || !m.Retired(now)
}

// List returns the memories of every store that pass the filter, newest first.
func (s *Set) List(f Filter) ([]*Memory, error) {
	var out []*Memory
	for _, st := range s.Stores() {
		ms, err := st.List(f)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	sortMemories(out)
	return out, nil
}

// List returns the memories of this store that pass the filter, newest first.
func (s *Store) List(f Filter) ([]*Memory, error) {
	var rd *Reader
	var err error
	if f.AsOf != nil {
		c, err := s.CommitAt(*f.AsOf)
		if err != nil {
			return nil, err
		}
		rd, err = s.ReadAt(c)
		if err != nil {
			return nil, err
		}
	} else if rd, err = s.Read(); err != nil {
		return nil, err
	}
	all, err := rd.All()
	if err != nil {
		return nil, err
	}
	var out []*Memory
	for _, m := range all {
		if f.Keep(m) {
			out = append(out, m)
		}
	}
	sortMemories(out)
	return out, nil
}

// ShortIDs returns the display id of each of ids: its shortest prefix (at
// least MinShownPrefix digits) that no other memory of the set's stores
// shares, nor another of ids. git mem show resolves a prefix across the
// same stores (Locate), so a display id names one memory, whatever the
// size of the stores, as git extends an abbreviated object name until it
// is unique. Only the fan-out trees of the ids' first two digits are read.
func (s *Set) ShortIDs(ids []string) (map[string]string, error) {
	stores := s.Stores()
	readers := make([]*Reader, len(stores))
	lists := make([]func(string) ([]string, error), len(stores)) // a store's neighbours of an id, when it keeps a list (Store.IDs)
	for i, st := range stores {
		if st.IDs != nil || s.IDs != nil {
			if tip, err := st.Tip(); err == nil {
				if near, ok := s.listOf(st, tip); ok {
					lists[i] = near
					continue
				}
			}
		}
		rd, err := st.Read()
		if err != nil {
			return nil, err
		}
		readers[i] = rd
	}
	out := make(map[string]string, len(ids))
	among := ShortIDs(ids)
	fans := make([]map[string][]string, len(readers)) // per store: fan-out -> its ids, sorted
	for _, id := range ids {
		short := among[id]
		for i, rd := range readers {
			if fans[i] == nil {
				fans[i] = map[string][]string{}
			}
			if rd == nil {
				nb, err := lists[i](id)
				if err != nil {
					return nil, err
				}
				if p := ShortestUnique(id, nb); len(p) > len(short) {
					short = p
				}
				continue
			}
			fan, ok := fans[i][Clip(id, 2)]
			if !ok {
				var err error
				if fan, err = rd.snap.idsWithPrefix(Clip(id, 2)); err != nil {
					return nil, err
				}
				sort.Strings(fan)
				fans[i][Clip(id, 2)] = fan
			}
			// the ids sharing most digits with id are its neighbours in order
			at := sort.SearchStrings(fan, id)
			var nb []string
			if at > 0 {
				nb = append(nb, fan[at-1])
			}
			if at < len(fan) && fan[at] == id {
				at++
			}
			if at < len(fan) {
				nb = append(nb, fan[at])
			}
			if p := ShortestUnique(id, nb); len(p) > len(short) {
				short = p
			}
		}
		out[id] = short
	}
	return out, nil
}

// listOf is the list of a store's ids at tip (Store.IDs, else Set.IDs).
func (s *Set) listOf(st *Store, tip Hash) (near func(id string) ([]string, error), ok bool) {
	if st.IDs != nil {
		if near, ok := st.IDs(tip); ok {
			return near, true
		}
	}
	if s.IDs != nil {
		return s.IDs(st, tip)
	}
	return nil, false
}

// ShortIDs returns the shortest unique display prefix of each id among ids
// alone: where the stores cannot be read, or for ids of no store. A display
// id must be unique in the stores (Set.ShortIDs).
func ShortIDs(ids []string) map[string]string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	out := map[string]string{}
	for i, id := range sorted {
		var nb []string
		if i > 0 {
			nb = append(nb, sorted[i-1])
		}
		if i+1 < len(sorted) {
			nb = append(nb, sorted[i+1])
		}
		out[id] = ShortestUnique(id, nb)
	}
	return out
}
