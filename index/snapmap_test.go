//go:build unix

package index

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// mapped is a recall that reads the snapshot through memory maps
// (Access.Map), as a hook process does.
func mapped(o *Options) { o.Access.Map = true }

// TestMappedSnapshotReadsLikeAFile: recall from a mapped snapshot returns
// what it returns from the file read in parts, with the same scores; a
// mapped snapshot replaced by a rebuild still reads as it was; a corrupt
// postings list in a mapped snapshot is a checksum error, not a crash.
func TestMappedSnapshotReadsLikeAFile(t *testing.T) {
	r, path := snapshotRepo(t)
	ctx := context.Background()
	r.add("The zeppelin hangar doors stick in cold weather; oil the rails first.")
	_, err := Rebuild(ctx, r.set, nil) // in the base, not the delta
	require.NoError(t, err)
	queries := []string{"zeppelin hangar doors", "deploy api fly.io", "how do payments reach stripe", "nothing about anything here"}
	read := map[string]*Result{}
	for _, q := range queries {
		read[q] = r.recall(q)
	}

	for _, q := range queries {
		got := r.recall(q, mapped)
		require.Equal(t, "snapshot", got.Source, got.Fallback)
		require.Equal(t, ids(read[q]), ids(got), q)
		for i := range got.Hits {
			require.InDelta(t, read[q].Hits[i].Score, got.Hits[i].Score, 1e-12)
			require.InDelta(t, read[q].Hits[i].Confidence, got.Hits[i].Confidence, 1e-12)
		}
	}

	s, err := openSnapshot(path, true)
	require.NoError(t, err)
	require.NotNil(t, s.mapped, "opened through a map")
	defer s.close()
	term := Analyze("zeppelin")[0]
	count := func() int {
		t.Helper()
		n := 0
		require.NoError(t, s.postings(term, func(uint64, int, int) { n++ }))
		return n
	}
	require.Equal(t, 1, count())
	r.add("Zeppelin tours leave from the north dock.")
	_, err = Rebuild(ctx, r.set, nil) // renamed over the mapped file
	require.NoError(t, err)
	require.Equal(t, 1, count(), "the map still holds the snapshot it was opened on")
	_, raw, err := s.doc(0)
	require.NoError(t, err)
	require.NotEmpty(t, raw)

	now, err := openSnapshot(path, true)
	require.NoError(t, err)
	defer now.close()
	ti, err := now.findTerm(term)
	require.NoError(t, err)
	require.Equal(t, 2, ti.df, "the rebuilt snapshot has both")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[ti.off] ^= 0xff
	corrupt := filepath.Join(t.TempDir(), "recall.snapshot")
	require.NoError(t, os.WriteFile(corrupt, data, 0o644))
	bad, err := openSnapshot(corrupt, true)
	require.NoError(t, err, "the header and table of contents are intact")
	require.NotNil(t, bad.mapped)
	defer bad.close()
	err = bad.postings(term, func(uint64, int, int) {})
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorContains(t, err, "checksum mismatch", "caught by the list's checksum, read from the map")

	// documents are read from the file by the piece, and checked as well
	e := now.docEntry(t, 0)
	data[ti.off] ^= 0xff
	data[e.off+int64(e.n)-1] ^= 0xff
	require.NoError(t, os.WriteFile(corrupt, data, 0o644))
	bad, err = openSnapshot(corrupt, true)
	require.NoError(t, err)
	require.NotNil(t, bad.mapped)
	defer bad.close()
	_, _, err = bad.doc(0)
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorContains(t, err, "checksum mismatch", "caught by the document's checksum")
	for _, r := range []docRange{{bad.size - 1, 2}, {0, 1 << 40}, {-1, 1}, {0, -1}} {
		_, err := bad.readPiece(r.off, r.n, 0)
		require.ErrorIs(t, err, ErrSnapshot, "%+v", r)
		require.ErrorContains(t, err, "out of range", "%+v: refused before any read or room is taken", r)
	}
}

// docRange is where a document lies in a snapshot file.
type docRange struct {
	off int64
	n   int
}

// docEntry returns where document i lies, from the document table.
func (s *snapshot) docEntry(t *testing.T, i int) docRange {
	t.Helper()
	blk, err := s.read(s.docOff+int64(i/snapBlock*snapBlock*snapDocSize), min(snapBlock, s.ndocs-i/snapBlock*snapBlock)*snapDocSize, s.docCRC[i/snapBlock])
	require.NoError(t, err)
	e := blk[(i%snapBlock)*snapDocSize:]
	le := binary.LittleEndian
	return docRange{off: int64(le.Uint64(e)), n: int(le.Uint32(e[8:]) + le.Uint32(e[12:]))}
}

// TestMappedSnapshotTruncatedUnderItsReader: a mapped snapshot whose file
// is truncated in place (git-mem never does; another program might) faults
// when read past the new end, and with panics on faults (as the hooks run
// their work) the fault is a panic the reader recovers from, not a crash.
func TestMappedSnapshotTruncatedUnderItsReader(t *testing.T) {
	r, path := snapshotRepo(t)
	r.add("The zeppelin hangar doors stick in cold weather; oil the rails first.")
	_, err := Rebuild(context.Background(), r.set, nil)
	require.NoError(t, err)
	s, err := openSnapshot(path, true)
	require.NoError(t, err)
	require.NotNil(t, s.mapped)
	defer s.close()
	require.NoError(t, os.Truncate(path, 0))
	_, _, err = s.doc(s.ndocs - 1)
	require.ErrorIs(t, err, ErrSnapshot, "a document is read from the file: past its end is an error")
	term := Analyze("zeppelin")[0]
	recovered := func() (p any) {
		defer func() { p = recover() }()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		_ = s.postings(term, func(uint64, int, int) {})
		return nil
	}()
	require.NotNil(t, recovered, "the fault is a panic")
	fault, ok := recovered.(interface{ Addr() uintptr })
	require.True(t, ok, "a memory fault: %v", recovered)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s.mapped)))
	require.True(t, fault.Addr() >= start && fault.Addr() < start+uintptr(len(s.mapped)), "in the map")
}

// TestMapFaultIsAnError: the duplicate check's count over a mapped snapshot
// that another program truncated under it, run under faultsAsErrors (as
// similarInSnapshot and refreshFrom run their reads), is an ErrSnapshot
// error where the process would die of SIGBUS; a panic that is no fault
// still panics. The truncation cannot be timed inside those two, which open
// the file themselves and would find it short before mapping it.
func TestMapFaultIsAnError(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	genStore(t, r.main, 2000, 7) // a dictionary and postings of many pages
	require.NoError(t, Refresh(context.Background(), r.set))
	path := SnapshotPath(r.set)
	v, err := openView(path, true)
	require.NoError(t, err)
	defer v.close()
	require.NotNil(t, v.base.mapped, "opened through a map")
	require.NoError(t, os.Truncate(path, snapHeader)) // under the map: what it read stays

	err = faultsAsErrors(func() error {
		_, _, ok := similarIn(v, gitstore.ScopeProject, gitstore.TypeFact, "We deploy the API to Fly.io with fly deploy", time.Now())
		require.Fail(t, "read a truncated map", "ok: %v", ok)
		return nil
	})
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorIs(t, err, errMapFault)
	require.PanicsWithValue(t, "no fault", func() {
		_ = faultsAsErrors(func() error { panic("no fault") })
	})
}
