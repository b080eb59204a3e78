package gitobj

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/stretchr/testify/require"
)

// TestManyPacks: a repository with more packs than the reader keeps open
// is read whole, the packs past the limit opened for each lookup.
func TestManyPacks(t *testing.T) {
	dir := gittest.Init(t)
	for i := 0; i < 5; i++ {
		commitFiles(t, dir, 3, fmt.Sprintf("Pack %d fact %%d: one pack each.", i))
		gittest.Run(t, dir, "repack", "-q", "-d")
	}
	packs, err := filepath.Glob(filepath.Join(objectsDir(dir), "pack", "*.idx"))
	require.NoError(t, err)
	require.Len(t, packs, 5)
	defer func(n int) { maxPacks = n }(maxPacks)
	maxPacks = 2
	db := OpenDiskWithAlternates(objectsDir(dir), 1, nil)
	defer db.Close()
	all := catFileAll(t, dir)
	for h, want := range all {
		got, err := db.Read(h)
		require.NoError(t, err, h.String())
		require.Equal(t, want.typ, int(got.Type), h.String())
		require.Equal(t, want.data, got.Data, h.String())
	}
	p := newPackReader(objectsDir(dir))
	defer p.close()
	for h, want := range all {
		got, err := p.read(h)
		require.NoError(t, err, h.String())
		require.Equal(t, want, got, h.String())
	}
	open := 0
	for _, pf := range p.packs {
		if pf.idx != nil {
			open++
		}
	}
	require.Equal(t, 2, open, "no more packs than the limit stay open")
	_, err = p.read(Hash{1, 2, 3})
	require.ErrorIs(t, err, errNotInPacks)
	_, err = db.Read(Hash{1, 2, 3})
	require.ErrorIs(t, err, ErrNotFound)
}
