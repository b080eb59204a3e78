//go:build unix

package snapshot

import (
	"bytes"
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

// TestMappedSnapshotReadsLikeAFile: a mapped snapshot reads what the file
// read in parts does; one replaced by renaming a new file over it still
// reads as it was; a corrupt postings list or document in a mapped
// snapshot is a checksum error, not a crash.
func TestMappedSnapshotReadsLikeAFile(t *testing.T) {
	docs := seedDocs(t)
	path := writeFile(t, encodeDocs(t, nil, docs))
	read, err := Open(path, false, testStamp)
	require.NoError(t, err)
	defer read.Close()
	s, err := Open(path, true, testStamp)
	require.NoError(t, err)
	require.True(t, s.Mapped(), "opened through a map")
	require.False(t, read.Mapped())
	defer s.Close()
	for _, term := range []string{"api", "zeppelin", "deploy", "nothing"} {
		type posting struct{ doc, tf, dl int }
		var want, got []posting
		require.NoError(t, read.Postings(term, func(doc uint64, tf, dl int) { want = append(want, posting{int(doc), tf, dl}) }))
		require.NoError(t, s.Postings(term, func(doc uint64, tf, dl int) { got = append(got, posting{int(doc), tf, dl}) }))
		require.Equal(t, want, got, term)
	}

	term := "zeppelin"
	count := func() int {
		t.Helper()
		n := 0
		require.NoError(t, s.Postings(term, func(uint64, int, int) { n++ }))
		return n
	}
	require.Equal(t, 1, count())
	more := append(docs, memoryDoc(t, "d4", gitstore.TypeFact, "Zeppelin tours leave from the north dock", time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)))
	next := filepath.Join(t.TempDir(), "recall.snapshot.new")
	require.NoError(t, os.WriteFile(next, encodeDocs(t, nil, more), 0o644))
	require.NoError(t, os.Rename(next, path)) // renamed over the mapped file
	require.Equal(t, 1, count(), "the map still holds the snapshot it was opened on")
	_, raw, err := s.Doc(0)
	require.NoError(t, err)
	require.NotEmpty(t, raw)

	now, err := Open(path, true, testStamp)
	require.NoError(t, err)
	defer now.Close()
	ti, err := now.findTerm(term)
	require.NoError(t, err)
	require.Equal(t, 2, ti.df, "the rewritten snapshot has both")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[ti.off] ^= 0xff
	corrupt := writeFile(t, data)
	bad, err := Open(corrupt, true, testStamp)
	require.NoError(t, err, "the header and table of contents are intact")
	require.True(t, bad.Mapped())
	defer bad.Close()
	err = bad.Postings(term, func(uint64, int, int) {})
	require.ErrorIs(t, err, ErrUnusable)
	require.ErrorContains(t, err, "checksum mismatch", "caught by the list's checksum, read from the map")

	// documents are read from the file by the piece, and checked as well
	e := now.docEntry(t, 0)
	data[ti.off] ^= 0xff
	data[e.off+int64(e.n)-1] ^= 0xff
	require.NoError(t, os.WriteFile(corrupt, data, 0o644))
	bad, err = Open(corrupt, true, testStamp)
	require.NoError(t, err)
	require.True(t, bad.Mapped())
	defer bad.Close()
	_, _, err = bad.Doc(0)
	require.ErrorIs(t, err, ErrUnusable)
	require.ErrorContains(t, err, "checksum mismatch", "caught by the document's checksum")
	for _, r := range []docRange{{bad.size - 1, 2}, {0, 1 << 40}, {-1, 1}, {0, -1}} {
		_, err := bad.readPiece(r.off, r.n, 0)
		require.ErrorIs(t, err, ErrUnusable, "%+v", r)
		require.ErrorContains(t, err, "out of range", "%+v: refused before any read or room is taken", r)
	}
}

// docRange is where a document lies in a snapshot file.
type docRange struct {
	off int64
	n   int
}

// docEntry returns where document i lies, from the document table.
func (s *File) docEntry(t *testing.T, i int) docRange {
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
	path := writeFile(t, encodeDocs(t, nil, seedDocs(t)))
	s, err := Open(path, true, testStamp)
	require.NoError(t, err)
	require.True(t, s.Mapped())
	defer s.Close()
	require.NoError(t, os.Truncate(path, 0))
	_, _, err = s.Doc(s.ndocs - 1)
	require.ErrorIs(t, err, ErrUnusable, "a document is read from the file: past its end is an error")
	recovered := func() (p any) {
		defer func() { p = recover() }()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		_ = s.Postings("zeppelin", func(uint64, int, int) {})
		return nil
	}()
	require.NotNil(t, recovered, "the fault is a panic")
	fault, ok := recovered.(interface{ Addr() uintptr })
	require.True(t, ok, "a memory fault: %v", recovered)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s.mapped)))
	require.True(t, fault.Addr() >= start && fault.Addr() < start+uintptr(len(s.mapped)), "in the map")
}

// TestFaultsAsErrors: a fault reading a map under FaultsAsErrors is an
// ErrUnusable error (ErrMapFault) where the process would die of SIGBUS; a
// panic that is no fault still panics.
func TestFaultsAsErrors(t *testing.T) {
	path := writeFile(t, encodeDocs(t, nil, manyDocs(t, 2000))) // postings of many pages
	s, err := Open(path, true, testStamp)
	require.NoError(t, err)
	require.True(t, s.Mapped())
	defer s.Close()
	require.NoError(t, os.Truncate(path, HeaderSize)) // under the map: what it read stays
	err = FaultsAsErrors(func() error {
		return s.Postings("common", func(uint64, int, int) {})
	})
	require.ErrorIs(t, err, ErrUnusable)
	require.ErrorIs(t, err, ErrMapFault)
	require.PanicsWithValue(t, "no fault", func() {
		_ = FaultsAsErrors(func() error { panic("no fault") })
	})
}

// TestKeysFromTheMap: Key gives each document's key as Doc does, from a
// file read into memory and from a mapped one (whose keys and document
// table it reads from the map); a document whose bytes changed is
// ErrUnusable either way, and a mapped file truncated under its reader is
// an ErrMapFault error under FaultsAsErrors.
func TestKeysFromTheMap(t *testing.T) {
	docs := manyDocs(t, 3*snapBlock+5)
	data := encodeDocs(t, nil, docs)
	path := writeFile(t, data)
	for _, mapped := range []bool{false, true} {
		s, err := Open(path, mapped, testStamp)
		require.NoError(t, err)
		require.Equal(t, mapped, s.Mapped())
		for _, i := range []int{0, 1, snapBlock - 1, snapBlock, 2*snapBlock + 7, s.Docs() - 1} {
			want, _, err := s.Doc(i)
			require.NoError(t, err)
			got, err := s.Key(i)
			require.NoError(t, err)
			require.Equal(t, want, got, "mapped %v, document %d", mapped, i)
		}
		for _, i := range []int{-1, s.Docs()} {
			_, err := s.Key(i)
			require.ErrorIs(t, err, ErrUnusable, "mapped %v, document %d", mapped, i)
		}
		s.Close()
	}

	// a changed byte in a document's JSON: its key is refused
	s := readData(t, data)
	k, raw, err := s.Doc(7)
	require.NoError(t, err)
	at := bytes.Index(data, append([]byte(k), raw...)) + len(k) + 2
	damaged := bytes.Clone(data)
	damaged[at] ^= 1
	for _, mapped := range []bool{false, true} {
		bad, err := Open(writeFile(t, damaged), mapped, testStamp)
		require.NoError(t, err)
		_, err = bad.Key(6)
		require.NoError(t, err, "the document before it")
		_, err = bad.Key(7)
		require.ErrorIs(t, err, ErrUnusable)
		require.ErrorContains(t, err, "checksum mismatch")
		bad.Close()
	}

	// truncated under a mapped reader
	s, err = Open(path, true, testStamp)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, os.Truncate(path, HeaderSize))
	err = FaultsAsErrors(func() error {
		_, err := s.Key(s.Docs() - 1)
		return err
	})
	require.ErrorIs(t, err, ErrMapFault)
}
