package index

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// ErrSnapshot marks a snapshot file that cannot be used (missing, of
// another version, truncated or corrupt).
var ErrSnapshot = snapshot.ErrUnusable

// snapStamp is what a snapshot is written with, and must have been
// written with to be read: this mapping and this analysis.
func snapStamp() snapshot.Stamp {
	return snapshot.Stamp{Mapping: MappingVersion, Analysis: AnalysisPrint()}
}

// openSnapshot opens the snapshot at path (snapshot.Open).
func openSnapshot(path string, mapped bool) (*snapshot.File, error) {
	return snapshot.Open(path, mapped, snapStamp())
}

// readSnapshot reads an encoded snapshot held in memory.
func readSnapshot(data []byte) (*snapshot.File, error) {
	return snapshot.Read(bytes.NewReader(data), int64(len(data)), snapStamp())
}

// SnapshotPath is where the recall snapshot of a set lives
// (memdir.Dir.Snapshot; "" when the set has no directory).
func SnapshotPath(set *gitstore.Set) string {
	switch {
	case set == nil:
		return ""
	case set.Repo != nil:
		return set.Repo.Mem().Snapshot()
	case set.Personal != nil:
		return set.Personal.Mem().Snapshot()
	}
	return ""
}

// snapDoc is one document while a snapshot is being built.
type snapDoc struct {
	raw []byte // canonical JSON
	n   int    // number of terms, repeats included
	tf  termFreqs
	sum snapshot.Summary
}

func newSnapDoc(m *gitstore.Memory, in interner) (*snapDoc, error) {
	raw, err := m.Encode()
	if err != nil {
		return nil, err
	}
	return analyzedDoc(m, raw, in), nil
}

// analyzedDoc is a memory with its canonical JSON raw, analyzed; in, when
// not nil, shares the term strings between documents.
func analyzedDoc(m *gitstore.Memory, raw []byte, in interner) *snapDoc {
	terms := docTerms(m, analyzer{})
	return &snapDoc{raw: raw, n: len(terms), tf: countTerms(terms, in), sum: snapshot.SummaryOf("", m)}
}

// termFreq is a term of a document and how often it occurs there.
type termFreq struct {
	term string
	n    int32
}

// termFreqs are a document's distinct terms in ascending order with their
// counts: a slice, not a map, as a rebuild holds one per memory.
type termFreqs []termFreq

// countTerms counts terms (it sorts them in place).
func countTerms(terms []string, in interner) termFreqs {
	sort.Strings(terms)
	var out termFreqs
	for i, t := range terms {
		if i > 0 && t == terms[i-1] {
			out[len(out)-1].n++
			continue
		}
		out = append(out, termFreq{in.of(t), 1})
	}
	return slices.Clip(out)
}

func compareTermFreq(a, b termFreq) int { return strings.Compare(a.term, b.term) }

// interner shares equal term strings while a snapshot is built, so that
// 100,000 memories do not each hold their own copy of common words.
type interner map[string]string

func (in interner) of(s string) string {
	if in == nil {
		return s
	}
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// encodeSnapshot writes documents by key as a snapshot reflecting tips.
func encodeSnapshot(tips map[string]string, docs map[string]*snapDoc) []byte {
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	raws := make([][]byte, len(keys))
	sums := make([]snapshot.Summary, len(keys))
	postings := map[string][]snapshot.Post{}
	tokens := 0
	for i, k := range keys {
		d := docs[k]
		raws[i] = d.raw
		sums[i] = d.sum
		sums[i].Key = k
		tokens += d.n
		dl := int32(normLen(lenAsNorm(d.n)))
		for _, e := range d.tf {
			postings[e.term] = append(postings[e.term], snapshot.Post{Doc: int32(i), TF: e.n, DL: dl})
		}
		d.tf = nil // the documents are this function's now: let them go as they are read
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	out, _ := snapshot.Encode(snapStamp(), tips, keys, raws, sums, tokens, 0, func(emit func(string, []snapshot.Post)) error {
		for _, t := range terms {
			emit(t, postings[t]) // ascending: documents were visited in order
		}
		return nil
	})
	return out
}

// loadSnapshotDoc returns a memory of base by key, as a corpus loads it.
func loadSnapshotDoc(base *snapshot.File, key string) (*entry, error) {
	raw, ok, err := base.Raw(key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %w: %s", ErrSnapshot, ErrNoDocument, key)
	}
	m, err := gitstore.DecodeMemory(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: document %s: %v", ErrSnapshot, key, err)
	}
	return &entry{key: key, scope: scopeOfKey(key), m: m}, nil
}
