package index

import (
	"context"
	"sort"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// dupCandidates is how many memories, those sharing the most of a new
// text's words, the duplicate check compares with it.
const dupCandidates = 64

// similarInSnapshot returns the current memory of the store's scope and the
// type most similar to text at or above DuplicateSimilarity, and its
// similarity, from the recall snapshot (brought up to date first).
//
// Similarity compares claim skeletons, so a near-duplicate shares most of
// the new text's words: the memories sharing the most of its distinct
// terms (numbers left out: the skeleton does not tell them apart) are the
// ones compared, counted from those terms' postings. That costs one pass
// over the postings and a counter per memory, where ranking the text as a
// query (BM25 over every group, synonyms and concepts, tables of every
// candidate) cost tens of milliseconds at 100,000 memories of common
// words, at every write. ok is false when the snapshot cannot be read (the
// caller then asks recall).
func similarInSnapshot(ctx context.Context, set *gitstore.Set, scope gitstore.Scope, typ, text string, now time.Time) (m *gitstore.Memory, sim float64, ok bool) {
	path := SnapshotPath(set)
	if path == "" {
		return nil, 0, false
	}
	v, err := syncSnapshot(ctx, path, set.Stores())
	if err != nil {
		return nil, 0, false
	}
	defer v.close()
	seen := map[string]bool{}
	var terms []string
	for _, t := range Analyze(text) {
		if !seen[t] && !isDigits(t) {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return nil, 0, true
	}
	// a memory sharing under half of the terms is far from the threshold
	floor := (len(terms) + 1) / 2
	counts := make([]uint8, v.docCount()+len(terms))
	for _, t := range terms {
		err := v.postings(t, func(doc uint64, _, _ int) {
			if doc >= uint64(len(counts)) {
				counts = append(counts, make([]uint8, int(doc)+1-len(counts))...)
			}
			if counts[doc] < 255 {
				counts[doc]++
			}
		})
		if err != nil {
			return nil, 0, false
		}
	}
	type cand struct {
		doc uint64
		n   uint8
	}
	var cands []cand
	for doc, n := range counts {
		if int(n) >= floor {
			cands = append(cands, cand{uint64(doc), n})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].n != cands[j].n {
			return cands[i].n > cands[j].n
		}
		return cands[i].doc < cands[j].doc
	})
	if len(cands) > dupCandidates {
		cands = cands[:dupCandidates]
	}
	for _, c := range cands {
		key, err := v.external(c.doc)
		if err != nil {
			return nil, 0, false
		}
		if scopeOfKey(key) != scope {
			continue
		}
		en, err := v.load(key)
		if err != nil {
			return nil, 0, false
		}
		if en.m.Type != typ || !en.m.Current(now) {
			continue
		}
		if s := Similarity(text, en.m.Text); s >= DuplicateSimilarity && s > sim {
			m, sim = en.m, s
		}
	}
	return m, sim, true
}
