package index

import (
	"context"
	"sort"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// dupCandidates is how many memories, those sharing the most of a new
// text's words, the duplicate check compares with it.
const dupCandidates = 64

// a memory's count of a text's terms fits the duplicate check's byte
const _ uint8 = MaxQueryTerms

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
// candidate) would cost far more at 100,000 memories of common words, at
// every write. A text of more than MaxQueryTerms distinct terms
// is counted on the rarest of them. ok is false when the snapshot cannot
// be read, a fault reading its map included (snapshot.FaultsAsErrors): the caller
// then asks recall.
//
// It returns the view it counted in (nil when ok is false), for the
// caller to bring forward over its write (refreshFrom), which closes it.
func similarInSnapshot(ctx context.Context, set *gitstore.Set, scope gitstore.Scope, typ, text string, now time.Time, acc Access) (m *gitstore.Memory, sim float64, v *snapView, ok bool) {
	path := SnapshotPath(set)
	if path == "" {
		return nil, 0, nil, false
	}
	err := snapshot.FaultsAsErrors(func() error {
		var err error
		if v, err = syncSnapshot(ctx, path, set.Stores(), acc); err != nil {
			return err
		}
		m, sim, ok = similarIn(v, scope, typ, text, now)
		return nil
	})
	if err != nil || !ok {
		closeView(v)
		return nil, 0, nil, false
	}
	return m, sim, v, true
}

// similarIn is similarInSnapshot's count in the view v.
func similarIn(v *snapView, scope gitstore.Scope, typ, text string, now time.Time) (m *gitstore.Memory, sim float64, ok bool) {
	var err error
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
	v.prepare(terms)
	if len(terms) > MaxQueryTerms {
		// a long text is counted on its rarest words, as a query is scored
		df := make(map[string]int, len(terms))
		for _, t := range terms {
			if df[t], err = v.df(t); err != nil {
				return nil, 0, false
			}
		}
		sort.Slice(terms, func(i, j int) bool {
			if df[terms[i]] != df[terms[j]] {
				return df[terms[i]] < df[terms[j]]
			}
			return terms[i] < terms[j]
		})
		terms = terms[:MaxQueryTerms]
	}
	// a memory sharing under half of the terms is far from the threshold
	floor := (len(terms) + 1) / 2
	type cand struct {
		doc uint64
		n   uint8
	}
	var cands []cand
	// a byte per memory (a text counts at most MaxQueryTerms terms), and the
	// memories reaching the floor noted as they do: at 100,000 memories the
	// table is the check's largest allocation, and pages a new process
	// touches first cost more than the counting
	counts := make([]uint8, v.docNumbers())
	for _, t := range terms {
		err := v.postings(t, func(doc uint64, _, _ int) {
			counts[doc]++
			if int(counts[doc]) == floor {
				cands = append(cands, cand{doc: doc})
			}
		})
		if err != nil {
			return nil, 0, false
		}
	}
	for i := range cands {
		cands[i].n = counts[cands[i].doc]
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
	sk := skeleton(text)
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
		if s := skeletonSimilarity(sk, skeleton(en.m.Text)); s >= DuplicateSimilarity && s > sim {
			m, sim = en.m, s
		}
	}
	return m, sim, true
}
