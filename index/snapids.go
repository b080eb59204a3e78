package index

import (
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
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
	v, err := openView(path, acc.Map)
	if err != nil {
		return set.ShortIDs(ids)
	}
	defer v.close()
	keys := &baseKeys{v: v, keys: map[int]string{}}
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
	return withList.ShortIDs(ids)
}

// baseKeys keeps the keys of the base documents read while looking ids up:
// the searches for several ids share their first steps.
type baseKeys struct {
	v    *snapView
	keys map[int]string
}

func (k *baseKeys) at(i int) (string, error) {
	if key, ok := k.keys[i]; ok {
		return key, nil
	}
	key, _, err := k.v.base.Doc(i)
	if err == nil {
		k.keys[i] = key
	}
	return key, err
}

// near returns the ids of scope just before and just after id in the view
// (not id itself): the live documents of the base (their keys read through
// keys) and of the delta.
func (v *snapView) near(scope gitstore.Scope, id string, keys *baseKeys) ([]string, error) {
	key := docKey(scope, id)
	prefix := string(scope) + ":"
	var before, after string // keys
	n := v.base.Docs()
	var ferr error
	at := sort.Search(n, func(i int) bool {
		k, err := keys.at(i)
		if err != nil {
			ferr = err
			return true
		}
		return k >= key
	})
	if ferr != nil {
		return nil, ferr
	}
	for i := at - 1; i >= 0; i-- {
		k, err := keys.at(i)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(k, prefix) {
			break
		}
		if !v.dropped[uint64(i)] {
			before = k
			break
		}
	}
	for i := at; i < n; i++ {
		k, err := keys.at(i)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(k, prefix) {
			break
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
