package dataset

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func exampleSetsDir() string { return filepath.Join("..", "..", "..", "fixtures", "evalsets") }

func TestLoadSets(t *testing.T) {
	sets, err := LoadSets(exampleSetsDir())
	require.NoError(t, err)
	require.Len(t, sets, 1)
	ds := sets[0]
	require.Equal(t, "tidepool-notes", ds.Name)
	require.Equal(t, "tidepool", ds.Source, "a set's source is its directory")
	require.Len(t, ds.Memories, 8)
	require.Equal(t, time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC), ds.Memories[1].At, "a date alone is midnight UTC")
	require.Equal(t, []string{"sensors/ph_driver.go"}, ds.Memories[0].Paths)
	require.Len(t, ds.Queries, 6)
	require.Equal(t, []string{"n6", "n7"}, ds.Queries[2].Expect)
	require.Equal(t, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), ds.Queries[2].At)
	splits := map[string]int{}
	for _, q := range ds.Queries {
		require.Equal(t, setSplit(ds.Name, q.ID), q.Split, "the split is a function of the set and the id")
		splits[q.Split]++
	}
	require.Equal(t, 6, splits["tune"]+splits["test"])
}

func TestLoadSetRejects(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"unknown relevant memory", `{"name":"x","memories":[{"id":"a","text":"t"}],"queries":[{"id":"q","text":"t","kind":"k","relevant":["b"]}]}`, "unknown memory b"},
		{"repeated id", `{"name":"x","memories":[{"id":"a","text":"t"},{"id":"a","text":"u"}],"queries":[]}`, "repeated"},
		{"bad date", `{"name":"x","memories":[{"id":"a","text":"t","date":"last tuesday"}],"queries":[]}`, "neither RFC 3339"},
		{"not JSON", `{"name":`, "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), []byte(tc.body), 0o644))
			_, err := LoadSets(dir)
			require.ErrorIs(t, err, memerr.ErrInvalid)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := LoadSets(t.TempDir())
	require.ErrorContains(t, err, "holds no recall set")
}
