package gitstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

// A set reads its linked stores after its own, labelled with their scope;
// a read-only one refuses every write, and a writable one takes them.
func TestSetLinkedStores(t *testing.T) {
	ctx := context.Background()
	r, err := Open(gitInit(t))
	require.NoError(t, err)
	copyDir := filepath.Join(t.TempDir(), "repo.git")
	c, created, err := OpenBare(copyDir, true)
	require.NoError(t, err)
	require.True(t, created)
	gitstoretest.CheckedByGit(t, copyDir)
	_, again, err := OpenBare(copyDir, true)
	require.NoError(t, err)
	require.False(t, again)
	_, _, err = OpenBare(filepath.Join(t.TempDir(), "none.git"), false)
	require.ErrorIs(t, err, memerr.ErrEmptyStore)

	org := NewStore(c, RefMain, "org:acme")
	_, err = org.Add(ctx, Writer{Agent: "cli"}, NewMemory{Text: "the org deploys on Tuesdays", Source: SourceUser})
	require.NoError(t, err)
	_, err = NewStore(r, RefMain, ScopeProject).Add(ctx, Writer{Agent: "cli"}, NewMemory{Text: "this project deploys on Fridays", Source: SourceUser})
	require.NoError(t, err)

	ro := NewStore(c, RefMain, "org:acme")
	ro.ReadOnly = true
	set := &Set{Repo: r, Linked: []*Store{ro}}
	require.True(t, Scope("org:acme").Linked())
	require.False(t, ScopeProject.Linked())
	stores := set.Stores()
	require.Len(t, stores, 3)
	require.Equal(t, Scope("org:acme"), stores[2].Scope, "linked stores are read last")

	all, err := set.List(Filter{})
	require.NoError(t, err)
	require.Len(t, all, 2)
	scopes := map[string]Scope{}
	for _, m := range all {
		scopes[m.Text] = m.Scope()
	}
	require.Equal(t, Scope("org:acme"), scopes["the org deploys on Tuesdays"])

	for _, m := range all {
		if m.Scope().Linked() {
			st, _, err := set.Find(m.ID)
			require.NoError(t, err)
			_, err = st.Forget(ctx, Writer{Agent: "cli"}, m.ID)
			require.ErrorIs(t, err, memerr.ErrInvalid, "a read-only linked store refuses a forget")
			_, err = st.Confirm(ctx, Writer{Agent: "cli"}, m.ID)
			var roErr *memerr.ReadOnlyError
			require.ErrorAs(t, err, &roErr)
		}
	}
	before, err := c.resolveRef(RefMain)
	require.NoError(t, err)

	_, err = set.Writable("org:acme")
	require.ErrorIs(t, err, memerr.ErrInvalid)
	_, err = set.Writable("org:other")
	require.ErrorIs(t, err, memerr.ErrNotFound)
	after, err := c.resolveRef(RefMain)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing was written to the read-only store")

	ro.ReadOnly = false
	w, err := set.Writable("org:acme")
	require.NoError(t, err)
	_, err = w.Add(ctx, Writer{Agent: "cli"}, NewMemory{Text: "the org's on-call rotates weekly", Source: SourceUser})
	require.NoError(t, err)
}

// A display id is unique in every store of the set, linked ones included,
// whether a linked store's ids come from its trees or from the list it
// keeps (Store.IDs); a list of another tip is not used.
func TestShortIDsAcrossLinkedStores(t *testing.T) {
	r, err := Open(gitInit(t))
	require.NoError(t, err)
	copyDir := filepath.Join(t.TempDir(), "repo.git")
	c, _, err := OpenBare(copyDir, true)
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, copyDir)
	const mine, theirs, alone = "abcdef0123456789", "abcdef0199999999", "1234560000000000"
	plant(t, NewStore(r, RefMain, ScopeProject), mine, goodDoc(t, mine))
	plant(t, NewStore(r, RefMain, ScopeProject), alone, goodDoc(t, alone))
	tip := plant(t, NewStore(c, RefMain, "org:acme"), theirs, goodDoc(t, theirs))

	org := NewStore(c, RefMain, "org:acme")
	set := &Set{Repo: r, Linked: []*Store{org}}
	want := map[string]string{mine: "abcdef012", theirs: "abcdef019", alone: "123456"}
	got, err := set.ShortIDs([]string{mine, theirs, alone})
	require.NoError(t, err)
	require.Equal(t, want, got, "from the trees")

	asked := 0
	org.IDs = func(h Hash) (func(string) ([]string, error), bool) {
		asked++
		if h != tip {
			return nil, false
		}
		// one more id than the trees hold: the answer shows the list was read
		list := []string{"1234560100000000", theirs}
		return func(id string) ([]string, error) {
			var nb []string
			for _, x := range list {
				if x != id {
					nb = append(nb, x)
				}
			}
			return nb, nil
		}, true
	}
	got, err = set.ShortIDs([]string{mine, theirs, alone})
	require.NoError(t, err)
	require.Equal(t, map[string]string{mine: "abcdef012", theirs: "abcdef019", alone: "12345600"}, got, "from the list")
	require.Equal(t, 1, asked)

	org.IDs = func(Hash) (func(string) ([]string, error), bool) { return nil, false }
	got, err = set.ShortIDs([]string{mine, theirs, alone})
	require.NoError(t, err)
	require.Equal(t, want, got, "no list for the tip: the trees")
}
