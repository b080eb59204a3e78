package index

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// mapForTest maps the snapshots the test opens, and stops after it.
func mapForTest(t *testing.T) {
	t.Helper()
	MapSnapshots()
	t.Cleanup(func() { mapSnapshots.Store(false) })
}

// TestMappedSnapshotRecallsTheSame: a mapped snapshot answers as one read
// by the piece, and a damaged one is refused the same way.
func TestMappedSnapshotRecallsTheSame(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("snapshots are read by the piece here")
	}
	r := newTestRepo(t)
	r.seed()
	queries := []string{"deploy api fly.io", "database migrations", "playwright timeout in ci", "stripe webhook signing secret"}
	var read [][]string
	for _, q := range queries {
		res := r.recall(q)
		require.Equal(t, "snapshot", res.Source, res.Fallback)
		require.NotEmpty(t, ids(res), q)
		read = append(read, ids(res))
	}
	mapForTest(t)
	v, err := openView(SnapshotPath(r.set))
	require.NoError(t, err)
	require.NotNil(t, v.base.mapped, "mapped")
	v.close()
	for i, q := range queries {
		res := r.recall(q)
		require.Equal(t, "snapshot", res.Source, res.Fallback)
		require.Equal(t, read[i], ids(res), q)
	}

	// a damaged postings list fails its checksum, mapped or not
	path := SnapshotPath(r.set)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	v, err = openView(path)
	require.NoError(t, err)
	ti, err := v.base.findTerm("deploy")
	require.NoError(t, err)
	require.True(t, ti.exists)
	v.close()
	data[ti.off] ^= 0xff
	require.NoError(t, os.WriteFile(path+".damaged", data, 0o644))
	s, err := openSnapshot(path + ".damaged")
	require.NoError(t, err)
	require.NotNil(t, s.mapped)
	err = s.postings("deploy", func(uint64, int, int) {})
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorContains(t, err, "checksum")
}

// TestMappedSnapshotCutShort: a mapped file cut short under a reader
// faults; with SetPanicOnFault, as the hooks run, that is a panic their
// handler recovers, not a crash of the process.
func TestMappedSnapshotCutShort(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("snapshots are read by the piece here")
	}
	r := newTestRepo(t)
	r.seed()
	r.recall("deploy") // writes the snapshot
	mapForTest(t)
	path := SnapshotPath(r.set)
	s, err := openSnapshot(path)
	require.NoError(t, err)
	require.NotNil(t, s.mapped)
	require.NoError(t, os.Truncate(path, 0))
	recovered := make(chan any, 1)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() { recovered <- recover() }()
		_, _, _ = s.doc(s.ndocs - 1)
	}()
	p := <-recovered
	require.NotNil(t, p, "the read faulted")
	_, isRuntime := p.(runtime.Error)
	require.True(t, isRuntime, "%v", p)
}
