package handoff

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// The start cache is two lines: what every start shows (tips, standing,
// subagent keys), then the recent memories, decoded only when asked for.
// A broken second line never hides the first, and is rebuilt.
func TestStartCacheIsReadInParts(t *testing.T) {
	ctx := context.Background()
	set, st := bootRepo(t)
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs in Go files"})
	recentMem := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The ledger stores amounts in cents"})

	standing, recent, _, err := startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Len(t, recent(), 1)

	path := cachePath(set)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, lines, 2, "tips and standing on the first line, recent memories on the second")
	require.Contains(t, string(lines[0]), "Prefer tabs")
	require.NotContains(t, string(lines[0]), "amounts in cents")
	require.Contains(t, string(lines[1]), "amounts in cents")

	// an unchanged store: the first line alone gives the standing memories,
	// whatever the second holds
	broken := append(append(append([]byte(nil), lines[0]...), '\n'), []byte("{broken\n")...)
	require.NoError(t, os.WriteFile(path, broken, 0o600))
	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Empty(t, recent(), "a broken recent line shows nothing")
	require.NoFileExists(t, path, "and is removed, to be rebuilt")

	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	got := recent()
	require.Len(t, got, 1)
	require.Equal(t, recentMem.ID, got[0].M.ID)

	// a changed store with a broken recent line rebuilds the whole cache
	require.NoError(t, os.WriteFile(path, broken, 0o600))
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Refunds are reconciled nightly"})
	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Len(t, recent(), 2)
}
