package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// testStamp is the stamp the tests' snapshots are written and read with.
var testStamp = Stamp{Mapping: 7, Analysis: 0x5eed}

// testDoc is a document of a test snapshot: a memory and its terms, as
// index would analyze them.
type testDoc struct {
	key   string
	m     *gitstore.Memory
	terms []string
}

// memoryDoc is a memory of the project scope with words as its terms.
func memoryDoc(t *testing.T, id, typ, text string, created time.Time) testDoc {
	t.Helper()
	m := &gitstore.Memory{Schema: 1, ID: id, Type: typ, Text: text, Source: "test", Trust: 0.8,
		Created: created, Updated: created, ValidFrom: created}
	return testDoc{key: "project:" + id, m: m, terms: strings.Fields(strings.ToLower(text))}
}

// encodeDocs encodes docs as a snapshot reflecting tips: their canonical
// JSON, summaries and postings, a document's length its term count.
func encodeDocs(t *testing.T, tips map[string]string, docs []testDoc) []byte {
	t.Helper()
	docs = slices.Clone(docs)
	sort.Slice(docs, func(a, b int) bool { return docs[a].key < docs[b].key })
	keys := make([]string, len(docs))
	raws := make([][]byte, len(docs))
	sums := make([]Summary, len(docs))
	postings := map[string][]Post{}
	tokens := 0
	for i, d := range docs {
		raw, err := d.m.Encode()
		require.NoError(t, err)
		keys[i], raws[i], sums[i] = d.key, raw, SummaryOf(d.key, d.m)
		tokens += len(d.terms)
		tf := map[string]int32{}
		for _, term := range d.terms {
			tf[term]++
		}
		for term, n := range tf {
			postings[term] = append(postings[term], Post{Doc: int32(i), TF: n, DL: int32(len(d.terms))})
		}
	}
	terms := make([]string, 0, len(postings))
	for term := range postings {
		terms = append(terms, term)
	}
	sort.Strings(terms)
	data, err := Encode(testStamp, tips, keys, raws, sums, tokens, 0, func(emit func(string, []Post)) error {
		for _, term := range terms {
			emit(term, postings[term])
		}
		return nil
	})
	require.NoError(t, err)
	return data
}

// seedDocs are a few memories, the first two sharing a word.
func seedDocs(t *testing.T) []testDoc {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return []testDoc{
		memoryDoc(t, "a1", gitstore.TypeFact, "We deploy the API to Fly.io with fly deploy", at),
		memoryDoc(t, "b2", gitstore.TypeDecision, "Payments reach Stripe through the API gateway", at.Add(time.Hour)),
		memoryDoc(t, "c3", gitstore.TypeFact, "The zeppelin hangar doors stick in cold weather", at.Add(2*time.Hour)),
	}
}

// manyDocs are n memories of a few words each.
func manyDocs(t *testing.T, n int) []testDoc {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	docs := make([]testDoc, n)
	for i := range docs {
		docs[i] = memoryDoc(t, fmt.Sprintf("m%05d", i), gitstore.TypeFact,
			fmt.Sprintf("word%d word%d common entry%d", i%37, i%101, i), at.Add(time.Duration(i)*time.Minute))
	}
	return docs
}

func readData(t *testing.T, data []byte) *File {
	t.Helper()
	s, err := Read(bytes.NewReader(data), int64(len(data)), testStamp)
	require.NoError(t, err)
	return s
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recall.snapshot")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestRoundTrip: a snapshot reads back what it was written with: tips,
// documents by number and by key, postings, counts and summaries.
func TestRoundTrip(t *testing.T) {
	docs := seedDocs(t)
	tips := map[string]string{"project refs/memory/main": "abc123"}
	s := readData(t, encodeDocs(t, tips, docs))
	require.Equal(t, tips, s.Tips())
	require.Equal(t, 3, s.Docs())
	tokens := 0
	for _, d := range docs {
		tokens += len(d.terms)
	}
	require.Equal(t, tokens, s.Tokens())
	for i, d := range docs {
		k, raw, err := s.Doc(i)
		require.NoError(t, err)
		require.Equal(t, d.key, k)
		want, err := d.m.Encode()
		require.NoError(t, err)
		require.Equal(t, want, raw)
		n, found, err := s.Find(d.key)
		require.NoError(t, err)
		require.Equal(t, i, n)
		require.Equal(t, want, found)
	}
	n, raw, err := s.Find("project:zz")
	require.NoError(t, err)
	require.Equal(t, -1, n)
	require.Nil(t, raw)
	_, ok, err := s.Raw("project:zz")
	require.NoError(t, err)
	require.False(t, ok)

	df, err := s.DF("api")
	require.NoError(t, err)
	require.Equal(t, 2, df)
	var got []uint64
	require.NoError(t, s.Postings("api", func(doc uint64, tf, dl int) {
		got = append(got, doc)
		require.Equal(t, 1, tf)
		require.Equal(t, len(docs[doc].terms), dl)
	}))
	require.Equal(t, []uint64{0, 1}, got)
	got = nil
	require.NoError(t, s.PostingsAmong("api", []uint64{1, 2}, func(doc uint64, _, _ int) { got = append(got, doc) }))
	require.Equal(t, []uint64{1}, got)

	k, err := s.External(2)
	require.NoError(t, err)
	require.Equal(t, docs[2].key, k)
	require.Equal(t, 1, s.Loaded())
	_, ok, err = s.Raw(k)
	require.NoError(t, err)
	require.True(t, ok)
	s.ForgetLoaded()
	require.Zero(t, s.Loaded())

	sums, err := s.Summaries()
	require.NoError(t, err)
	for i, d := range docs {
		require.Equal(t, SummaryOf(d.key, d.m), sums[i])
	}
}

// TestStampAndDamage: a snapshot of another stamp, truncated or with a
// damaged header or table of contents is ErrUnusable when opened.
func TestStampAndDamage(t *testing.T) {
	data := encodeDocs(t, nil, seedDocs(t))
	for _, tc := range []struct {
		name  string
		data  func() []byte
		stamp Stamp
	}{
		{"another mapping", func() []byte { return data }, Stamp{Mapping: testStamp.Mapping + 1, Analysis: testStamp.Analysis}},
		{"another analysis", func() []byte { return data }, Stamp{Mapping: testStamp.Mapping, Analysis: testStamp.Analysis + 1}},
		{"truncated", func() []byte { return data[:len(data)-1] }, testStamp},
		{"not a snapshot", func() []byte { return []byte("hello") }, testStamp},
		{"header changed", func() []byte { b := bytes.Clone(data); b[24] ^= 1; return b }, testStamp},
		{"table of contents changed", func() []byte { b := bytes.Clone(data); b[len(b)-1] ^= 1; return b }, testStamp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.data()
			_, err := Read(bytes.NewReader(b), int64(len(b)), tc.stamp)
			require.ErrorIs(t, err, ErrUnusable)
		})
	}
	_, err := Open(filepath.Join(t.TempDir(), "none"), false, testStamp)
	require.ErrorIs(t, err, ErrUnusable, "a missing file")
}

// TestSetTokens: a writer that counts the terms while they are laid out
// sets the count afterwards, and the header checks again.
func TestSetTokens(t *testing.T) {
	data := encodeDocs(t, nil, seedDocs(t))
	SetTokens(data, 1234)
	require.Equal(t, 1234, readData(t, data).Tokens())
}

// TestRecordedStoreKey: keys recorded with the repository's directory
// (earlier versions) read as today's.
func TestRecordedStoreKey(t *testing.T) {
	for _, tc := range []struct{ recorded, want string }{
		{"project refs/memory/main", "project refs/memory/main"},
		{"project refs/memory/main /srv/app/.git", "project refs/memory/main"},
		{"personal refs/memory/main /home/a b/.local/share/git-mem/personal.git", "personal refs/memory/main"},
	} {
		require.Equal(t, tc.want, recordedStoreKey(tc.recorded), tc.recorded)
	}
}

// TestDictionaryBlocksAreCheckedOnce: a lookup keeps the dictionary block
// it read and checked, so the next lookup in the same block does not read
// it again (its copy in the file may since have changed: the snapshot
// answers as it was checked); a pass over every block keeps none.
func TestDictionaryBlocksAreCheckedOnce(t *testing.T) {
	clean := encodeDocs(t, nil, seedDocs(t))
	s := readData(t, clean)
	var terms []string
	require.NoError(t, s.EachTerm(0, false, func(term []byte, _ TermInfo) bool {
		terms = append(terms, string(term))
		return len(terms) < 2
	}))
	require.Len(t, terms, 2, "the first block holds two terms")
	want, err := s.findTerm(terms[1])
	require.NoError(t, err)
	require.True(t, want.exists)

	data := bytes.Clone(clean)
	s = readData(t, data)
	_, err = s.findTerm(terms[0])
	require.NoError(t, err)
	data[s.blocks[0].off] ^= 0xff // the block's first byte, after it was checked
	got, err := s.findTerm(terms[1])
	require.NoError(t, err, "the block checked by the first lookup answers the second")
	require.Equal(t, want, got)

	_, err = readData(t, data).findTerm(terms[1])
	require.ErrorIs(t, err, ErrUnusable, "a new reader checks the block again")

	data = bytes.Clone(clean)
	s = readData(t, data)
	require.NoError(t, s.EachTerm(0, false, func([]byte, TermInfo) bool { return true }))
	data[s.blocks[0].off] ^= 0xff
	_, err = s.findTerm(terms[0])
	require.ErrorIs(t, err, ErrUnusable, "a pass over the blocks keeps none")
}

// TestSummaryTableIsCheckedOnce: a snapshot scans its summary table
// again (list does, for the shown ids' neighbours) from what it read and
// checked the first time; a new reader checks it again.
func TestSummaryTableIsCheckedOnce(t *testing.T) {
	data := encodeDocs(t, nil, seedDocs(t))
	count := func(s *File) (int, error) {
		n := 0
		err := s.ScanSummaries(func(int, []byte, []byte, int64, int64) { n++ })
		return n, err
	}
	s := readData(t, data)
	n, err := count(s)
	require.NoError(t, err)
	require.Equal(t, s.ndocs, n)

	data[s.sumOff] ^= 0xff // the table's first byte, after it was checked
	again, err := count(s)
	require.NoError(t, err, "the table read and checked once answers again")
	require.Equal(t, n, again)
	_, err = count(readData(t, data))
	require.ErrorIs(t, err, ErrUnusable, "a new reader checks the table again")
}

// TestSummaryTableFromTheFile: a snapshot read from its file reads the
// summary table (through a map of its own where the system has them) as
// the table's bytes say, checks it, and turns a file truncated under it
// into an ErrUnusable error, not a crash.
func TestSummaryTableFromTheFile(t *testing.T) {
	data := encodeDocs(t, nil, manyDocs(t, 500)) // a table of several pages
	path := writeFile(t, data)
	inMemory := readData(t, data)
	want, err := inMemory.Summaries()
	require.NoError(t, err)
	require.Greater(t, inMemory.sumLen, 3*os.Getpagesize())

	for _, tc := range []struct {
		name  string
		spoil func(s *File)
		fails bool
	}{
		{"as written", func(*File) {}, false},
		{"a byte changed", func(s *File) {
			b := bytes.Clone(data)
			b[s.sumOff+int64(s.sumLen)/2] ^= 0xff
			require.NoError(t, os.WriteFile(path, b, 0o644))
		}, true},
		{"truncated", func(s *File) {
			require.NoError(t, os.Truncate(path, s.sumOff+1))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, data, 0o644))
			s, err := Open(path, false, testStamp)
			require.NoError(t, err)
			defer s.Close()
			tc.spoil(s)
			got, err := s.Summaries()
			if tc.fails {
				require.ErrorIs(t, err, ErrUnusable)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
