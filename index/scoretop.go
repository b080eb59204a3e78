package index

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// scoreTop is score keeping only what topByRelevance(cands, 0, k) would
// (all the candidates, in no order, when k <= 0), with the number of
// candidates. The candidates are not written out first: at 100,000
// memories a query of common words has thousands, and memory a new process
// touches for the first time costs more than the arithmetic.
//
// Its steps: the document frequency of every word of every group
// (docFrequencies), the known groups kept and weighed (chooseGroups), the
// order the words are scored in and which of them admit new candidates
// (scoringOrder), the postings read into per-document cells
// (scorer.accumulate), and the candidates kept (scorer.top).
func scoreTop(c corpus, terms []string, cfg *Tuning, k int) ([]cand, int, *queryStats, error) {
	qs := &queryStats{n: c.docCount(), groups: len(terms)}
	if len(terms) == 0 {
		return nil, 0, qs, nil
	}
	avgdl := c.avgLen()
	if avgdl <= 0 {
		avgdl = 1
	}
	all := expand(terms, cfg)
	df, err := docFrequencies(c, all)
	if err != nil {
		return nil, 0, qs, err
	}
	q := chooseGroups(all, df, cfg, qs)
	if q == nil {
		return nil, 0, qs, nil
	}
	words := scoringOrder(q, df, qs)
	s := newScorer(q, words, df, avgdl)
	defer s.release()
	if err := s.accumulate(c, words, df); err != nil {
		return nil, 0, qs, err
	}
	qs.seen = len(s.docs)
	top, above := s.top(k, cfg.candidateFloorValue())
	return top, above, qs, nil
}

// docFrequencies reads the document frequency of every word of every
// group, telling a termPreparer corpus all of them first.
func docFrequencies(c corpus, all [][]weighted) (map[string]int, error) {
	if p, ok := c.(termPreparer); ok {
		var every []string
		for _, members := range all {
			for _, m := range members {
				every = append(every, m.term)
			}
		}
		p.prepare(every)
	}
	df := map[string]int{}
	for _, members := range all {
		for _, m := range members {
			if _, done := df[m.term]; done {
				continue
			}
			d, err := c.df(m.term)
			if err != nil {
				return nil, err
			}
			df[m.term] = d
		}
	}
	return df, nil
}

// scoredQuery is the part of a query that is scored: the known groups
// kept, rarest first, with their reference weights, and what relevance is
// measured against.
type scoredQuery struct {
	n      int // memories in the corpus
	groups [][]weighted
	refs   []float64
	// total is what relevance is divided by: the sum of the reference
	// weights, scaled down for a long query
	total float64
	capv  float64 // the group cap
	floor float64 // the candidate floor in score (not relevance) units
}

// chooseGroups keeps the known groups, the scoredGroups rarest, weighs
// them by their reference weight and marks the specific ones (the rarer
// half) in qs; nil when the store knows none of them.
func chooseGroups(all [][]weighted, df map[string]int, cfg *Tuning, qs *queryStats) *scoredQuery {
	n := qs.n
	// reference weight of each known group: the idf of the term, or (when
	// only synonyms occur in the store) of its rarest synonym
	type known struct {
		g   []weighted
		ref float64
		pos int
	}
	var ks []known
	for i, members := range all {
		ref := 0.0
		if df[members[0].term] > 0 {
			ref = idf(n, df[members[0].term])
		} else {
			for _, m := range members[1:] {
				if d := df[m.term]; d > 0 {
					ref = math.Max(ref, idf(n, d))
				}
			}
		}
		if ref == 0 {
			qs.unknown++
			continue
		}
		ks = append(ks, known{members, ref, i})
	}
	sort.SliceStable(ks, func(a, b int) bool { return ks[a].ref > ks[b].ref })
	if k := cfg.scoredGroupsValue(); len(ks) > k {
		ks = ks[:k]
	}
	G := len(ks)
	qs.scored = G
	if G == 0 {
		return nil
	}
	q := &scoredQuery{n: n, groups: make([][]weighted, G), refs: make([]float64, G)}
	qs.members = map[string]bool{}
	for g, k := range ks {
		q.groups[g], q.refs[g] = k.g, k.ref
		q.total += k.ref
		for _, m := range k.g {
			qs.members[m.term] = true
		}
	}
	qs.refs = q.refs
	if k := cfg.longQueryValue(); k > 0 && G > k {
		q.total *= float64(k) / float64(G)
	}
	// the specific groups: the rarer half (groups are in order of rarity);
	// a group exactly as rare as the last one chosen is as specific, so
	// that which of equally rare words counts does not depend on word order
	qs.specific = make([]bool, G)
	nspec := int(math.Ceil(float64(G) / 2))
	for g := range q.groups {
		if g < nspec || q.refs[g] >= q.refs[nspec-1]-1e-9 {
			qs.specific[g] = true
		}
	}
	q.capv = cfg.capValue()
	q.floor = cfg.candidateFloorValue() * q.total
	return q
}

// scoredWord is one word of a scored group, in the order it is scored.
type scoredWord struct {
	term  string
	group int
	at    int // its place in the order of the groups
	w     float64
	self  bool // the query word itself, not a synonym
	opens bool // a document not seen before it becomes a candidate
}

// scoringOrder decides which words admit new candidates: the fewest of the
// specific groups' words, those that can score most, such that a document
// matching none of them cannot reach the candidate floor with all the
// other words (a BM25 term stays under w·(k1+1), and a group counts at
// most its cap). Those words are scored first, the others then only score
// the documents already seen. So a prompt's rare words admit what matches
// them, and their common synonyms (a "job" is also a "queue") add to
// those documents instead of bringing thousands more.
func scoringOrder(q *scoredQuery, df map[string]int, qs *queryStats) []scoredWord {
	var words []scoredWord
	for g, members := range q.groups {
		for mi, m := range members {
			if d := df[m.term]; d > 0 {
				// a synonym counts at most SynonymWeight of the word
				// itself, however much rarer it is
				words = append(words, scoredWord{term: m.term, group: g, at: len(words), w: m.w * min(idf(q.n, d), q.refs[g]), self: mi == 0})
			}
		}
	}
	slices.SortStableFunc(words, func(a, b scoredWord) int {
		if sa, sb := qs.specific[a.group], qs.specific[b.group]; sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		if !qs.specific[a.group] {
			return 0
		}
		return cmp.Compare(b.w, a.w)
	})
	most := make([]float64, len(q.groups)) // each group's best possible score without the words before k
	for k := len(words) - 1; k >= 0; k-- {
		wd := &words[k]
		most[wd.group] = max(most[wd.group], wd.w*(bm25K1+1))
		if !qs.specific[wd.group] {
			continue
		}
		reach := 0.0
		for g, m := range most {
			reach += min(m, q.capv*q.refs[g])
		}
		wd.opens = reach >= q.floor-1e-9
	}
	// the admitting words first, each part in the order of the groups, as
	// a document's cells then mostly come
	slices.SortStableFunc(words, func(a, b scoredWord) int {
		if a.opens != b.opens {
			if a.opens {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.at, b.at)
	})
	return words
}

// scorer holds the documents seen while a query's postings are read, and
// each one's cells (its best score per group).
type scorer struct {
	q     *scoredQuery
	tb    *scoreTables
	slots *slotTable
	docs  []uint64 // the document at each slot
	dls   []int32  // its length
	cells *groupCells
	avgdl float64
	// norms is a posting's length normalization, k1·(1-b+b·dl/avgdl), by
	// document length (0: not yet known; it is never 0): computed once per
	// length, by the same operations in the same order, so that the scores
	// are the same to the bit
	norms [maxCachedNorm]float64
	order []*scoreCell // a reused buffer for a document's cells in order
}

// newScorer takes tables with room for every document the opening words
// can bring, and for a cell per posting up to two per document (most match
// one or two groups), so that the tables are seldom copied as they grow.
func newScorer(q *scoredQuery, words []scoredWord, df map[string]int, avgdl float64) *scorer {
	room, postings := 0, 0
	for _, wd := range words {
		if wd.opens {
			room += df[wd.term]
		}
		postings += df[wd.term]
	}
	room = min(room, q.n)
	tb := takeTables(room, min(postings, 2*room))
	tb.slots.reserve(q.n)
	return &scorer{q: q, tb: tb, slots: &tb.slots, docs: tb.docs, dls: tb.dls, cells: &tb.cells, avgdl: avgdl}
}

// release gives the tables back for the next query.
func (s *scorer) release() {
	s.tb.docs, s.tb.dls = s.docs, s.dls
	s.tb.release()
}

func (s *scorer) norm(dl int) float64 {
	if dl < 0 || dl >= maxCachedNorm {
		return bm25K1 * (1 - bm25B + bm25B*float64(dl)/s.avgdl)
	}
	if s.norms[dl] == 0 {
		s.norms[dl] = bm25K1 * (1 - bm25B + bm25B*float64(dl)/s.avgdl)
	}
	return s.norms[dl]
}

// accumulate reads the words' postings in order: an opening word's whole,
// another's among the documents already seen when the corpus can read
// them so (amongReader) and they are few against its document frequency.
func (s *scorer) accumulate(c corpus, words []scoredWord, df map[string]int) error {
	among, _ := c.(amongReader)
	var sorted []uint64 // candidates, ascending, once no new ones can enter
	for _, wd := range words {
		gg, w, self, open := wd.group, wd.w, wd.self, wd.opens
		add := func(doc uint64, tf, dl int) {
			i := s.slots.get(doc)
			if i < 0 {
				if !open {
					return
				}
				i = int32(len(s.docs))
				s.slots.set(doc, i)
				s.docs = append(s.docs, doc)
				s.dls = append(s.dls, int32(dl))
				s.cells.addDoc()
			}
			t := float64(tf)
			sc := w * t * (bm25K1 + 1) / (t + s.norm(dl))
			cell := s.cells.of(i, gg)
			if sc > cell.best {
				cell.best = sc
			}
			cell.exact = cell.exact || self
			cell.tf = max(cell.tf, uint16(min(tf, math.MaxUint16)))
		}
		var err error
		if open || among == nil || 4*len(s.docs) > df[wd.term] {
			err = c.postings(wd.term, add)
		} else {
			if sorted == nil {
				sorted = slices.Sorted(slices.Values(s.docs))
			}
			err = among.postingsAmong(wd.term, sorted, add)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// relevance is a document's relevance: its groups' best scores, each
// capped, over the query's total.
func (s *scorer) relevance(i int) float64 {
	q := s.q
	rel := 0.0
	if c := &s.cells.cells[s.cells.first[i]]; c.next < 0 {
		// one cell, as most candidates have: nothing to order
		if c.best > 0 {
			rel += min(c.best, q.capv*q.refs[c.group])
		}
		return rel / q.total
	}
	s.order = s.cells.inOrder(i, s.order)
	for _, cell := range s.order {
		if cell.best > 0 {
			rel += min(cell.best, q.capv*q.refs[cell.group])
		}
	}
	return rel / q.total
}

// candidate is a document with its relevance and the rest of its evidence.
func (s *scorer) candidate(i int, rel float64) cand {
	cd := cand{doc: s.docs[i], rel: rel}
	tokens := 0
	s.order = s.cells.inOrder(i, s.order)
	for _, cell := range s.order {
		if cell.best <= 0 {
			continue
		}
		ref := s.q.refs[cell.group]
		tokens += int(cell.tf)
		cd.matched++
		cd.matchedRef += ref
		cd.maxRef = max(cd.maxRef, ref)
		if cell.exact {
			cd.exactRef += ref
		}
	}
	if s.dls[i] > 0 {
		cd.coverage = min(1, float64(tokens)/float64(s.dls[i]))
	}
	return cd
}

// top keeps the candidates over candFloor: all of them, in no order, when
// k <= 0, else those topByRelevance would keep, by relevance; with the
// number over the floor.
func (s *scorer) top(k int, candFloor float64) ([]cand, int) {
	if k <= 0 {
		var out []cand
		for i := range s.docs {
			if rel := s.relevance(i); rel >= candFloor {
				out = append(out, s.candidate(i, rel))
			}
		}
		return out, len(out)
	}
	h := relHeap{k: k}
	// each document's relevance, kept for the second pass (allocated at
	// once: grown as it fills, its copies would cost a hook the pages of
	// twice its size)
	rels := s.tb.rels
	if cap(rels) < len(s.docs) {
		rels = make([]float64, len(s.docs))
		s.tb.rels = rels
	}
	rels = rels[:len(s.docs)]
	above := 0
	for i := range s.docs {
		rels[i] = s.relevance(i)
		if rels[i] >= candFloor {
			above++
			h.push(rels[i])
		}
	}
	threshold := h.threshold(candFloor)
	var top []cand
	for i, rel := range rels {
		if rel >= threshold {
			top = append(top, s.candidate(i, rel))
		}
	}
	sortByRelevance(top)
	return top, above
}
