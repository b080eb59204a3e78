package index

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Ranking, identical for the bleve index, the snapshot and the fallback scan:
//
//	relevance  = Σ_groups min(best_g(d), 1.5·ref_g) / (Σ_groups ref_g × min(1, 8/G))
//	confidence = σ(w · features)                       (confidence.go)
//	score      = relevance × (0.5 + effective trust) × recency × boosts
//
// Each query term is a group with its thesaurus synonyms and the concepts
// its words describe (concepts.go). best_g(d) is the highest BM25 term score
// (k1 1.2, b 0.75, idf ln(1 + (N-df+0.5)/(df+0.5))) in the document of the
// term itself, of a synonym (× SynonymWeight) or of a concept (×
// ConceptWeight), their idf capped at the term's: a group counts once
// however many of its words match, and a synonym never counts more than the
// word itself. ref_g is the idf of the term (or, when only synonyms occur in
// the store, of its rarest synonym): what one occurrence in a document of
// average length scores. Only groups the store knows are scored, the
// scoredGroups rarest of them; G is their number, and a query of more than
// 8 (longQuery) is measured against 8 groups' worth of it, as a memory
// answers a part of a long prompt. Relevance orders the candidates; whether
// a candidate is returned at all is the confidence's decision, made against
// the threshold of the operating point (Injection or Explicit).
//
// recency is 1 + ½·ln(1 + age^-½ + ½·Σ reinforcement_age^-½) (ACT-R base-level
// activation, ages in days, at least one day; reinforcements and
// confirmations count). boosts: ×1.15 when the memory was written on the
// current branch, ×1.3 when one of its paths is being changed in the worktree.

// KeyWeight is what a query word found in a memory's retrieval keys counts,
// against 1 in its text: keys help find a memory, and never count more than
// its text would.
const KeyWeight = 0.6

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

const (
	groupCap = 1.5
	// candidateFloor: the least relevance a memory needs to be weighed by
	// the confidence at all; it bounds the work of a query over a large store.
	candidateFloor = 0.25
	// scoredGroups: the most query groups scored, the rarest in the store.
	scoredGroups = 16
	// maxScoredGroups bounds any setting of it (a cell's group is a byte).
	maxScoredGroups = math.MaxUint8
	// idfPriorDocs: the fewest memories idf counts a store as (see idf).
	idfPriorDocs = 50
	// longQuery: the relevance of a question of more groups than this is
	// measured against longQuery groups' worth of it, not all of it: a
	// memory answers one part of a long, many-part prompt.
	longQuery    = 8
	branchBoost  = 1.15
	touchedBoost = 1.3
)

// corpus is what scoring needs from the index or the scan.
type corpus interface {
	docCount() int
	avgLen() float64
	// df is the number of documents containing term.
	df(term string) (int, error)
	// postings calls fn for every document containing term, with the term's
	// frequency and the document's length; doc keys are opaque to scoring.
	postings(term string, fn func(doc uint64, tf int, dl int)) error
}

// amongReader is a corpus that reads a term's postings among a few
// documents faster than all of them (the search engine by seeking, the
// snapshot by comparing as it decodes): once no new candidate can enter,
// scoring asks it for the candidates only.
type amongReader interface {
	// postingsAmong calls fn for at least the documents of docs (ascending)
	// that contain term.
	postingsAmong(term string, docs []uint64, fn func(doc uint64, tf int, dl int)) error
}

// termPreparer is a corpus that reads what it holds of many terms faster
// in one pass than term by term (a snapshot's delta): scoring tells it the
// terms it will ask about first.
type termPreparer interface {
	prepare(terms []string)
}

type posting struct {
	doc uint64
	tf  int
	dl  int
}

type cand struct {
	doc uint64  // corpus key
	key string  // external key "scope:id", set when the candidate is weighed
	rel float64 // normalized relevance
	// evidence for the confidence: groups matched, the sum and the highest
	// of their reference weights, and the part matched by the query word
	// itself (not only by a synonym or a concept)
	matched            int
	matchedRef, maxRef float64
	exactRef           float64
	// coverage is the share of the document's words the query matched
	coverage float64
}

// idf weighs a term by its rarity in the store, counting the store as at
// least idfPriorDocs memories: in a store of a few memories every word is
// in most of them, yet a word that two of three memories share is no
// commoner in what people write than it is in a large store.
func idf(n, df int) float64 {
	n = max(n, idfPriorDocs)
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// expand returns, for each query term, its group: the term, its synonyms and
// the concepts its words describe (none of them query terms), with their
// weights.
func expand(terms []string, cfg *Tuning) [][]weighted {
	inQuery := map[string]bool{}
	for _, t := range terms {
		inQuery[t] = true
	}
	groups := make([][]weighted, len(terms))
	var described [][]string
	if cfg == nil || !cfg.noThesaurus && !cfg.noConcepts {
		described = describedConcepts(loadLexicon(), terms)
	}
	for i, t := range terms {
		groups[i] = []weighted{{t, 1}}
		if cfg == nil || !cfg.noKeys {
			groups[i] = append(groups[i], weighted{keyPrefix + t, KeyWeight})
		}
		if cfg != nil && cfg.noThesaurus {
			continue
		}
		inGroup := map[string]bool{t: true}
		for _, s := range Synonyms(t) {
			if !inQuery[s] {
				inGroup[s] = true
				groups[i] = append(groups[i], weighted{s, cfg.synWeightValue()})
			}
		}
		if described == nil {
			continue
		}
		for _, c := range described[i] {
			if !inQuery[c] && !inGroup[c] {
				inGroup[c] = true
				groups[i] = append(groups[i], weighted{c, cfg.conceptWeightValue()})
			}
		}
	}
	return groups
}

type weighted struct {
	term string
	w    float64
}

// queryStats describes how a query met the corpus: what the confidence
// needs besides each candidate's own evidence.
type queryStats struct {
	n       int // memories in the corpus
	groups  int // distinct query terms analysed
	unknown int // of them, words no memory contains (not even as a synonym)
	scored  int // known groups scored (at most scoredGroups, the rarest)
	// specific marks the scored groups in the rarer half by reference weight
	specific []bool
	refs     []float64
	members  map[string]bool // every term of a scored group
	seen     int             // documents scored (the others could not reach the candidate floor)
}

// slotTable maps document numbers to dense slots: a slice for the small,
// dense numbers both corpora use, a map beyond.
type slotTable struct {
	dense []int32
	far   map[uint64]int32
}

const denseSlots = 1 << 22

// maxCachedNorm bounds the document lengths whose length normalization
// scoreTop keeps (a memory's text is a few dozen words).
const maxCachedNorm = 512

// reset forgets the slots of docs, the documents set since the last reset.
func (t *slotTable) reset(docs []uint64) {
	for _, d := range docs {
		if d < uint64(len(t.dense)) {
			t.dense[d] = 0
		}
	}
	t.far = nil
}

// scoreTables are score's tables of the documents seen, kept for the next
// call: at 100,000 memories a query of common words brings tens of
// thousands of candidates, whose tables (megabytes) a long-lived process
// would otherwise allocate, clear and collect at every recall; the MCP
// server asks recall once per memory_add, for its duplicate check.
type scoreTables struct {
	slots slotTable
	docs  []uint64
	dls   []int32
	cells groupCells
	rels  []float64 // each document's relevance
}

// groupCells is what each group found in each document (by slot). A
// document's cells are a list, newest first: most candidates match one or
// two of a query's groups, and a table of every group for every candidate
// costs a new process its pages (at 100,000 memories, megabytes).
type groupCells struct {
	first []int32 // each document's newest cell (-1: none yet)
	cells []scoreCell
}

// addDoc makes room for the next slot's document.
func (gc *groupCells) addDoc() { gc.first = append(gc.first, -1) }

// of returns the document's cell of group g, made empty if it has none.
func (gc *groupCells) of(doc int32, g int) *scoreCell {
	// the words mostly come group by group: the newest cell is most often
	// the one
	for c := gc.first[doc]; c >= 0; c = gc.cells[c].next {
		if int(gc.cells[c].group) == g {
			return &gc.cells[c]
		}
	}
	c := int32(len(gc.cells))
	gc.cells = append(gc.cells, scoreCell{next: gc.first[doc], group: uint8(g)})
	gc.first[doc] = c
	return &gc.cells[c]
}

// inOrder returns the document's cells in the order of their groups, in
// buf's memory: its sums are then added in the same order whatever the
// order the words were scored in, and come out the same to the bit.
func (gc *groupCells) inOrder(doc int, buf []*scoreCell) []*scoreCell {
	buf = buf[:0]
	for c := gc.first[doc]; c >= 0; c = gc.cells[c].next {
		buf = append(buf, &gc.cells[c])
	}
	// newest first, and the words mostly come group by group: reversed,
	// the list is all but sorted, and most are one or two cells long
	slices.Reverse(buf)
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j].group < buf[j-1].group; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return buf
}

// reserve makes room for docs documents and cells cells.
func (gc *groupCells) reserve(docs, cells int) {
	if cap(gc.first) < docs {
		gc.first = make([]int32, 0, docs)
	}
	if cap(gc.cells) < cells {
		gc.cells = make([]scoreCell, 0, cells)
	}
}

// scoreCell is what one group found in one document.
type scoreCell struct {
	best  float64 // the best score of the group's words
	next  int32   // the document's next older cell (-1: none)
	tf    uint16  // the matched word's frequency, saturating (a memory's text is far shorter)
	group uint8   // at most maxScoredGroups
	exact bool    // the query word itself matched, not only a synonym
}

// maxKeptCells bounds the tables kept between calls (16 bytes a cell:
// 4 MB), so that a long-lived process stays small: larger tables (a text
// of common words in a store of 100,000 memories: every memory a
// candidate) are made for their call only.
const maxKeptCells = 1 << 18

// spareTables holds the tables of the last call that finished; a call that
// finds none (the first, or one concurrent with another) makes its own.
var spareTables struct {
	sync.Mutex
	t *scoreTables
}

// takeTables returns empty tables with room for docs documents and cells
// cells.
func takeTables(docs, cells int) *scoreTables {
	spareTables.Lock()
	t := spareTables.t
	spareTables.t = nil
	spareTables.Unlock()
	if t == nil {
		t = &scoreTables{}
	}
	if cap(t.docs) < docs {
		t.docs, t.dls = make([]uint64, 0, docs), make([]int32, 0, docs)
	}
	t.cells.reserve(docs, cells)
	return t
}

// release empties the tables and keeps them for the next call, unless
// they grew past maxKeptCells.
func (t *scoreTables) release() {
	if cap(t.cells.cells) > maxKeptCells {
		return
	}
	t.slots.reset(t.docs)
	t.docs, t.dls = t.docs[:0], t.dls[:0]
	t.cells.first, t.cells.cells = t.cells.first[:0], t.cells.cells[:0]
	spareTables.Lock()
	spareTables.t = t
	spareTables.Unlock()
}

func (t *slotTable) get(doc uint64) int32 {
	if doc < denseSlots {
		if doc < uint64(len(t.dense)) {
			return t.dense[doc] - 1
		}
		return -1
	}
	if i, ok := t.far[doc]; ok {
		return i
	}
	return -1
}

// reserve makes the dense table room for documents below n at once: the
// postings come in document order, so growing the table as they come
// would copy and clear it several times over.
func (t *slotTable) reserve(n int) {
	if n = min(n, denseSlots); len(t.dense) < n {
		grown := make([]int32, n)
		copy(grown, t.dense)
		t.dense = grown
	}
}

func (t *slotTable) set(doc uint64, i int32) {
	if doc < denseSlots {
		if doc >= uint64(len(t.dense)) {
			n := max(int(doc)+1, 2*len(t.dense), 1024)
			grown := make([]int32, min(n, denseSlots))
			copy(grown, t.dense)
			t.dense = grown
		}
		t.dense[doc] = i + 1
		return
	}
	if t.far == nil {
		t.far = map[uint64]int32{}
	}
	t.far[doc] = i
}

// recency is the ACT-R activation multiplier of a memory at now.
func recency(m *gitstore.Memory, now time.Time) float64 {
	days := func(t time.Time) float64 {
		d := now.Sub(t).Hours() / 24
		if d < 1 {
			d = 1
		}
		return d
	}
	sum := math.Pow(days(m.Created), -0.5)
	for _, r := range m.Reinforced {
		sum += 0.5 * math.Pow(days(r), -0.5)
	}
	for _, e := range m.Events {
		if e.Op == gitstore.EventConfirm {
			sum += 0.5 * math.Pow(days(e.At), -0.5)
		}
	}
	return 1 + 0.5*math.Log(1+sum)
}

// touches reports whether one of the memory's paths is (or contains) a path
// changed in the worktree.
func touches(m *gitstore.Memory, touched map[string]bool) bool {
	if len(touched) == 0 {
		return false
	}
	for _, p := range m.Paths {
		if touched[p] {
			return true
		}
		for t := range touched {
			// a memory about a directory, a file in it being changed; or git
			// status's untracked directory ("dir/"), a file of it remembered
			if strings.HasPrefix(t, strings.TrimSuffix(p, "/")+"/") || strings.HasSuffix(t, "/") && strings.HasPrefix(p, t) {
				return true
			}
		}
	}
	return false
}

// finalScore applies the confidence, trust, recency and boosts to
// relevance. The confidence weighs in by its square root: what it knows
// beyond relevance (how much of the memory and of the query's rarer words
// the match covers) orders the memories a little, without letting it
// reorder the ranking wholesale.
func finalScore(rel, conf float64, m *gitstore.Memory, o *Options, touched map[string]bool, cfg *Tuning) (score, trust float64) {
	trust = m.EffectiveTrust(o.Now)
	if cfg != nil && cfg.noRerank {
		return rel, trust
	}
	s := rel * math.Sqrt(conf) * (0.5 + trust) * recency(m, o.Now)
	if o.Branch != "" && m.Anchor != nil && m.Anchor.Branch == o.Branch {
		s *= branchBoost
	}
	if touches(m, touched) {
		s *= touchedBoost
	}
	return s, trust
}

// sortByRelevance orders candidates by relevance, then by document.
func sortByRelevance(cands []cand) {
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].rel != cands[j].rel {
			return cands[i].rel > cands[j].rel
		}
		return cands[i].doc < cands[j].doc
	})
}

// relHeap keeps the k highest relevances pushed (at least one), in a
// min-heap.
type relHeap struct {
	h []float64
	k int
}

func (r *relHeap) push(rel float64) {
	k := max(r.k, 1)
	switch {
	case len(r.h) < k:
		r.h = append(r.h, rel)
		for i := len(r.h) - 1; i > 0; {
			p := (i - 1) / 2
			if r.h[p] <= r.h[i] {
				break
			}
			r.h[p], r.h[i] = r.h[i], r.h[p]
			i = p
		}
	case rel > r.h[0]:
		r.h[0] = rel
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(r.h) {
				return
			}
			m := l
			if rr := l + 1; rr < len(r.h) && r.h[rr] < r.h[l] {
				m = rr
			}
			if r.h[i] <= r.h[m] {
				return
			}
			r.h[i], r.h[m] = r.h[m], r.h[i]
			i = m
		}
	}
}

// threshold is the lowest relevance kept once k were pushed, else floor:
// every candidate at or above it is among the k most relevant or tied.
func (r *relHeap) threshold(floor float64) float64 {
	if len(r.h) == max(r.k, 1) {
		return max(r.h[0], floor)
	}
	return floor
}
