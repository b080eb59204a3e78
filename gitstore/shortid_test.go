package gitstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSetShortIDsAreUniqueInTheStores: a display id is extended until no
// other memory of the project, private or personal store shares it, even
// when the ids shown together differ early, and git mem show (Set.Find)
// resolves each to its memory.
func TestSetShortIDsAreUniqueInTheStores(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	set, err := OpenSet(dir)
	require.NoError(t, err)
	set.Repo = r
	put := func(st *Store, ids ...string) {
		for _, id := range ids {
			_, err := st.Update(context.Background(), Writer{}, func(tx *Tx) error {
				tx.Put(&Memory{ID: id, Type: TypeFact, Text: "memory " + id, Source: SourceUser, Trust: 0.9, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
				tx.Describe(OpAdd, "seed", id)
				return nil
			})
			require.NoError(t, err)
		}
	}
	main, err := set.Writable(ScopeProject)
	require.NoError(t, err)
	private, err := set.Writable(ScopePrivate)
	require.NoError(t, err)
	personal, err := set.Writable(ScopePersonal)
	require.NoError(t, err)
	put(main, "3f2a9c0000000001", "3f2a9c41d0000002", "77aa000000000001")
	put(private, "77aa001234000002")
	put(personal, "1234567890abcdef", "1234567890abcd00")

	shown := []string{"3f2a9c0000000001", "77aa000000000001", "1234567890abcdef"}
	short, err := set.ShortIDs(shown)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"3f2a9c0000000001": "3f2a9c0",         // shares 3f2a9c with another memory of main
		"77aa000000000001": "77aa000",         // with one of the private store
		"1234567890abcdef": "1234567890abcde", // with one of the personal store
	}, short)
	require.Equal(t, map[string]string{"3f2a9c0000000001": "3f2a9c", "77aa000000000001": "77aa00", "1234567890abcdef": "123456"}, ShortIDs(shown), "among the shown alone")
	for id, p := range short {
		_, m, err := set.Find(p)
		require.NoError(t, err, p)
		require.Equal(t, id, m.ID)
	}
	// among themselves too, and for an id of no store
	short, err = set.ShortIDs([]string{"abcdef0000000001", "abcdef0100000002"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"abcdef0000000001": "abcdef00", "abcdef0100000002": "abcdef01"}, short)
}
