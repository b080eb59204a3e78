package index

import (
	"errors"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// shortIDs is set.ShortIDs answered from the recall snapshot for each
// store it is current for: its keys are every store's ids in order, so the
// neighbours of an id are read there instead of from the store's trees,
// which a hook would otherwise inflate from the packs on every call.
func shortIDs(set *gitstore.Set, ids []string, acc Access) (map[string]string, error) {
	path := SnapshotPath(set)
	if path == "" || set.IDs != nil {
		return set.ShortIDs(ids)
	}
	v := takeKeptView(acc, path)
	if v == nil {
		var err error
		if v, err = openView(path, acc.Map); err != nil {
			return set.ShortIDs(ids)
		}
	}
	defer keepOrClose(acc, path, v)
	keys := newBaseKeys(v)
	withList := *set
	withList.IDs = func(st *gitstore.Store, tip gitstore.Hash) (func(string) ([]string, error), bool) {
		want := ""
		if !tip.IsZero() {
			want = tip.String()
		}
		if got, ok := v.tips[StoreKey(st)]; !ok || got != want || v.damaged {
			return nil, false
		}
		return func(id string) ([]string, error) { return v.near(st.Scope, id, keys) }, true
	}
	var short map[string]string
	// the keys of a mapped snapshot are read from the map: a fault there
	// (the file truncated under it) is an error, and the trees answer
	err := snapshot.FaultsAsErrors(func() error {
		var err error
		short, err = withList.ShortIDs(ids)
		return err
	})
	if errors.Is(err, snapshot.ErrMapFault) {
		return set.ShortIDs(ids)
	}
	return short, err
}

// baseKeys keeps the keys of the base documents read while looking ids up,
// and each scope's range of documents: the searches for several ids share
// their first steps.
type baseKeys struct {
	v      *snapView
	keys   map[int]string
	ranges map[gitstore.Scope][2]int
}

func newBaseKeys(v *snapView) *baseKeys {
	return &baseKeys{v: v, keys: map[int]string{}, ranges: map[gitstore.Scope][2]int{}}
}

func (k *baseKeys) at(i int) (string, error) {
	if key, ok := k.keys[i]; ok {
		return key, nil
	}
	// from a mapped snapshot, the key and the document table are read from
	// the map (snapshot.File.Key)
	key, err := k.v.base.Key(i)
	if err == nil {
		k.keys[i] = key
	}
	return key, err
}

// search is the first document in [lo, hi) whose key is at least key (hi
// when none is).
func (k *baseKeys) search(lo, hi int, key string) (int, error) {
	var ferr error
	at := lo + sort.Search(hi-lo, func(i int) bool {
		got, err := k.at(lo + i)
		if err != nil {
			ferr = err
			return true
		}
		return got >= key
	})
	return at, ferr
}

// scopeRange is the range of the base's documents of scope.
func (k *baseKeys) scopeRange(scope gitstore.Scope) (lo, hi int, err error) {
	if r, ok := k.ranges[scope]; ok {
		return r[0], r[1], nil
	}
	n := k.v.base.Docs()
	if lo, err = k.search(0, n, string(scope)+":"); err != nil {
		return 0, 0, err
	}
	// ':' + 1: past every key of the scope, before the next scope's
	if hi, err = k.search(lo, n, string(scope)+";"); err != nil {
		return 0, 0, err
	}
	k.ranges[scope] = [2]int{lo, hi}
	return lo, hi, nil
}

// idAt is where id falls in [lo, hi) of scope: the first document whose key
// is at least id's. Ids are random hex digits, spread evenly over a scope's
// range, so the search guesses each step's place from the digits of the
// keys at its ends, and halves the range when the guess is no help.
func (k *baseKeys) idAt(scope gitstore.Scope, lo, hi int, id string) (int, error) {
	key := docKey(scope, id)
	prefix := len(scope) + 1
	for hi-lo > 8 {
		first, err := k.at(lo)
		if err != nil {
			return 0, err
		}
		last, err := k.at(hi - 1)
		if err != nil {
			return 0, err
		}
		if key <= first {
			return lo, nil
		}
		if key > last {
			return hi, nil
		}
		a, b, x := hexValue(first[prefix:]), hexValue(last[prefix:]), hexValue(id)
		guess := lo + (hi-lo)/2
		if b > a {
			guess = lo + int(float64(hi-1-lo)*((x-a)/(b-a)))
		}
		guess = min(max(guess, lo+1), hi-2)
		got, err := k.at(guess)
		if err != nil {
			return 0, err
		}
		if got < key {
			lo = guess + 1
		} else {
			hi = guess + 1
		}
	}
	return k.search(lo, hi, key)
}

// hexValue is the value of a string's first hex digits, as a fraction of
// the largest such value.
func hexValue(s string) float64 {
	v, scale := 0.0, 1.0
	for i := 0; i < len(s) && i < 12; i++ {
		c := s[i]
		d := 0
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		}
		scale /= 16
		v += float64(d) * scale
	}
	return v
}

// near returns the ids of scope just before and just after id in the view
// (not id itself): the live documents of the base (their keys read through
// keys) and of the delta.
func (v *snapView) near(scope gitstore.Scope, id string, keys *baseKeys) ([]string, error) {
	key := docKey(scope, id)
	prefix := string(scope) + ":"
	var before, after string // keys
	lo, hi, err := keys.scopeRange(scope)
	if err != nil {
		return nil, err
	}
	at, err := keys.idAt(scope, lo, hi, id)
	if err != nil {
		return nil, err
	}
	for i := at - 1; i >= lo; i-- {
		if !v.dropped[uint64(i)] {
			if before, err = keys.at(i); err != nil {
				return nil, err
			}
			break
		}
	}
	for i := at; i < hi; i++ {
		k, err := keys.at(i)
		if err != nil {
			return nil, err
		}
		if k != key && !v.dropped[uint64(i)] {
			after = k
			break
		}
	}
	for _, d := range v.added {
		switch {
		case d.dead || !strings.HasPrefix(d.key, prefix):
		case d.key < key && d.key > before:
			before = d.key
		case d.key > key && (after == "" || d.key < after):
			after = d.key
		}
	}
	var out []string
	for _, k := range []string{before, after} {
		if k != "" {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	return out, nil
}
