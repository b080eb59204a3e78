package index

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Ranking (DESIGN §3), identical for the bleve index and the fallback scan:
//
//	relevance = Σ_groups min(best_g(d), 1.5·ref_g) / (Σ_groups ref_g × min(1, 8/G))
//	score     = relevance × (0.5 + effective trust) × recency × boosts
//
// Each query term is a group with its thesaurus synonyms and the concepts
// its words describe (concepts.go). best_g(d) is the highest BM25 term score
// (k1 1.2, b 0.75, idf ln(1 + (N-df+0.5)/(df+0.5))) in the document of the
// term itself, of a synonym (× SynonymWeight) or of a concept (×
// ConceptWeight), their idf capped at the term's: a group counts once
// however many of its words match, and a synonym never counts more than the
// word itself. G is the number of groups: a question of more than 8
// (longQuery) is measured against 8 groups' worth of it, as a memory answers
// a part of a long prompt. ref_g is the idf of the term (or, when only
// synonyms occur in the store, of its rarest synonym):
// what one occurrence in a document of average length scores. Relevance is
// therefore the idf-weighted share of the query the memory answers, about 1
// for a full match and 0 for none, whatever the store's size, and one floor
// (DefaultFloor) rejects off-topic queries. Words the store has never seen
// carry the highest idf and pull relevance down: an off-topic question that
// shares one incidental word with the store stays under the floor.
//
// Besides the floor, a memory is returned only when it matches at least two
// query groups (minGroups) and at least one of the query's specific words:
// the rarer half, by ref_g, of the groups the store knows (specificShare).
// A memory that answers only a question's commonest words ("enable",
// "code") answers its incidentals, not what it is about; that rule applies
// from specificStore memories on, below which document frequencies are too
// coarse to rank words by rarity. In a store of fewer
// than smallStore memories, where most words of any question are unknown,
// one matched group is enough (the floor still applies): "how do we deploy
// to production?" finds the deploy memory among three.
//
// recency is 1 + ½·ln(1 + age^-½ + ½·Σ reinforcement_age^-½) (ACT-R base-level
// activation, ages in days, at least one day; reinforcements and
// confirmations count). boosts: ×1.15 when the memory was written on the
// current branch, ×1.3 when one of its paths is being changed in the worktree.

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// DefaultFloor is the relevance under which a memory is not returned.
const DefaultFloor = 0.37

const (
	groupCap  = 1.5
	minGroups = 2
	// unknownWeight scales the reference weight of a query word no memory contains.
	unknownWeight = 1.0
	// unknownCap bounds the reference weight of a word no memory contains to
	// this multiple of the highest reference weight among the query's known
	// words. Off (no bound): measured on the eval's tune split, 1.25 changes
	// nothing, 1.0 lets an off-topic question through; in a store of a few
	// memories the smallStore rule, not a cap, is what answers.
	unknownCap = 0
	// specificShare: a memory must match one of the query's rarest known
	// words, the first specificShare of them by reference weight (0: off).
	specificShare = 0.5
	// specificStore: the smallest store the specific-word rule applies to.
	specificStore = 30
	// smallStore: in a store of fewer memories, one matched query word can
	// be enough (see score).
	smallStore = 10
	// longQuery: the relevance of a question of more groups than this is
	// measured against longQuery groups' worth of it, not all of it: a
	// memory answers one part of a long, many-part prompt.
	longQuery    = 8
	branchBoost  = 1.15
	touchedBoost = 1.3
)

// config switches parts of analysis and ranking off, for the eval's ablation.
type config struct {
	noStem, noSplit, noThesaurus, noRerank, noPhrase, noConcepts bool
	floor                                                        float64
	groupCap                                                     float64
	minGroups                                                    int
	unknown                                                      float64
	// unknownCap caps an unknown word's reference weight at this multiple of
	// the highest known one (0: unknownCap); synWeight overrides SynonymWeight.
	unknownCap, synWeight float64
	// specific overrides specificShare (a negative value switches it off).
	specific  float64
	longQuery int
	// concept overrides ConceptWeight.
	concept float64
}

func (c *config) conceptWeightValue() float64 {
	if c == nil || c.concept == 0 {
		return ConceptWeight
	}
	return c.concept
}

func (c *config) specificValue() float64 {
	if c == nil || c.specific == 0 {
		return specificShare
	}
	return max(c.specific, 0)
}

func (c *config) unknownCapValue() float64 {
	if c == nil || c.unknownCap == 0 {
		return unknownCap
	}
	return c.unknownCap
}

func (c *config) synWeightValue() float64 {
	if c == nil || c.synWeight == 0 {
		return SynonymWeight
	}
	return c.synWeight
}

func (c *config) capValue() float64 {
	if c == nil || c.groupCap == 0 {
		return groupCap
	}
	return c.groupCap
}

func (c *config) unknownValue() float64 {
	if c == nil || c.unknown == 0 {
		return unknownWeight
	}
	return c.unknown
}

func (c *config) minGroupsValue() int {
	if c == nil || c.minGroups == 0 {
		return minGroups
	}
	return c.minGroups
}

func (c *config) longQueryValue() int {
	if c == nil || c.longQuery == 0 {
		return longQuery
	}
	return max(c.longQuery, 0)
}

func (c *config) floorValue() float64 {
	if c == nil || c.floor == 0 {
		return DefaultFloor
	}
	return c.floor
}

// corpus is what scoring needs from the index or the scan.
type corpus interface {
	docCount() int
	avgLen() float64
	// df is the number of documents containing term.
	df(term string) (int, error)
	// postings calls fn for every document containing term, with the term's
	// frequency and the document's length; doc keys are opaque to scoring.
	postings(term string, fn func(doc uint64, tf int, dl int)) error
	// postingsAmong calls fn for at least the documents of docs (ascending)
	// that contain term.
	postingsAmong(term string, docs []uint64, fn func(doc uint64, tf int, dl int)) error
}

type posting struct {
	doc uint64
	tf  int
	dl  int
}

type cand struct {
	doc uint64  // corpus key
	key string  // external key "scope:id", set before ties are broken
	rel float64 // normalized relevance
}

func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

func bm25(idfv float64, tf, dl int, avgdl float64) float64 {
	if avgdl <= 0 {
		avgdl = 1
	}
	t := float64(tf)
	return idfv * t * (bm25K1 + 1) / (t + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl))
}

// expand returns, for each query term, its group: the term, its synonyms and
// the concepts its words describe (none of them query terms), with their
// weights.
func expand(terms []string, cfg *config) [][]weighted {
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

// score computes the relevance of every document that can reach the floor.
//
// Groups are scored rarest first (MaxScore): once the groups left cannot
// lift a document that has matched nothing yet to the floor (or to the
// minimum number of matched groups), only the documents already seen are
// looked up in the remaining, commoner terms' postings (by seeking, in the
// index), instead of walking those postings whole. Documents left out that
// way could not have been returned, so the answer is the same as a full
// evaluation's.
func score(c corpus, terms []string, cfg *config) ([]cand, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	n := c.docCount()
	avgdl := c.avgLen()
	if avgdl <= 0 {
		avgdl = 1
	}
	groups := expand(terms, cfg)
	df := map[string]int{}
	for _, members := range groups {
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
	// reference weight of each group
	G := len(groups)
	refs := make([]float64, G)
	unknown := make([]bool, G)
	maxKnown := 0.0
	for g, members := range groups {
		ref := idf(n, df[members[0].term])
		if df[members[0].term] == 0 {
			best := 0.0
			for _, m := range members[1:] {
				if d := df[m.term]; d > 0 {
					best = math.Max(best, idf(n, d))
				}
			}
			if best > 0 {
				ref = best
			} else {
				ref *= cfg.unknownValue()
				unknown[g] = true
			}
		}
		refs[g] = ref
		if !unknown[g] {
			maxKnown = max(maxKnown, ref)
		}
	}
	total := 0.0
	capu := cfg.unknownCapValue()
	if n < smallStore && capu == 0 {
		// In a store of a few memories nearly every word is unknown, and
		// unknown words, rarest of all, would outweigh what it does know.
		capu = 1
	}
	for g := range refs {
		if unknown[g] && maxKnown > 0 && capu > 0 {
			refs[g] = min(refs[g], capu*maxKnown)
		}
		total += refs[g]
	}
	if total <= 0 {
		return nil, nil
	}
	if k := cfg.longQueryValue(); k > 0 && G > k {
		total *= float64(k) / float64(G)
	}
	capv := cfg.capValue()
	need := min(G, cfg.minGroupsValue())
	if n < smallStore && maxKnown > 0 {
		// The two-matched-words rule guards against a word shared by
		// accident, which a store of a few memories offers little room for;
		// there, most words of any question are unknown, and requiring two
		// known ones would answer nothing. The floor still applies.
		known := 0
		for g := range groups {
			if !unknown[g] {
				known++
			}
		}
		need = min(need, known)
	}
	order := make([]int, G)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return refs[order[a]] > refs[order[b]] })
	suffix := make([]float64, G+1)
	for k := G - 1; k >= 0; k-- {
		suffix[k] = suffix[k+1] + capv*refs[order[k]]
	}
	floor := cfg.floorValue() * total

	// best[slot*G+g]: the best score of group g in the document at slot
	slots := newSlotTable()
	var docs []uint64
	var best []float64
	var sorted []uint64 // candidates, ascending, once no new ones can enter
	// the specific groups: the first ceil(specificShare × known) known
	// groups in order (the rarest); a memory must match one of them
	nspec, known := 0, 0
	for g := range groups {
		if !unknown[g] {
			known++
		}
	}
	// Rarity is measured by document frequency, which in a small store is
	// too coarse to tell a question's subject from its incidentals (one
	// memory more or less moves a word across the median): the rule applies
	// from specificStore memories on.
	if sh := cfg.specificValue(); sh > 0 && n >= specificStore {
		nspec = int(math.Ceil(sh * float64(known)))
	}
	specific := make([]bool, G)
	lastSpecific := -1 // position in order of the last specific group
	boundary := -1.0   // the ref of the last group chosen by count
	for k, g := range order {
		if unknown[g] {
			continue
		}
		// A group exactly as rare as the last one chosen is as specific:
		// which of equally rare words counts must not depend on word order.
		if nspec == 0 && (boundary < 0 || refs[g] < boundary-1e-9) {
			break
		}
		specific[g] = true
		lastSpecific = k
		if nspec > 0 {
			nspec--
			boundary = refs[g]
		}
	}
	for k, g := range order {
		open := suffix[k] >= floor-1e-12 && G-k >= need && (lastSpecific < 0 || k <= lastSpecific)
		if !open && sorted == nil {
			sorted = append([]uint64(nil), docs...)
			slices.Sort(sorted)
		}
		for _, m := range groups[g] {
			d := df[m.term]
			if d == 0 {
				continue
			}
			// a synonym counts at most SynonymWeight of the word itself,
			// however much rarer it is
			w := m.w * min(idf(n, d), refs[g])
			gg := g
			add := func(doc uint64, tf, dl int) {
				i := slots.get(doc)
				if i < 0 {
					if !open {
						return
					}
					i = int32(len(docs))
					slots.set(doc, i)
					docs = append(docs, doc)
					best = append(best, make([]float64, G)...)
				}
				t := float64(tf)
				s := w * t * (bm25K1 + 1) / (t + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl))
				if k := int(i)*G + gg; s > best[k] {
					best[k] = s
				}
			}
			var err error
			if open || 4*len(sorted) > d {
				err = c.postings(m.term, add)
			} else {
				err = c.postingsAmong(m.term, sorted, add)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	out := make([]cand, 0, len(docs))
	for i, doc := range docs {
		rel, matched, spec := 0.0, 0, lastSpecific < 0
		for g, s := range best[i*G : i*G+G] {
			if s > 0 {
				matched++
				spec = spec || specific[g]
			}
			rel += math.Min(s, capv*refs[g])
		}
		if matched < need || !spec {
			continue
		}
		out = append(out, cand{doc: doc, rel: rel / total})
	}
	return out, nil
}

// slotTable maps document numbers to dense slots: a slice for the small,
// dense numbers both corpora use, a map beyond.
type slotTable struct {
	dense []int32
	far   map[uint64]int32
}

const denseSlots = 1 << 22

func newSlotTable() *slotTable { return &slotTable{} }

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
			if strings.HasPrefix(t, strings.TrimSuffix(p, "/")+"/") {
				return true
			}
		}
	}
	return false
}

// finalScore applies trust, recency and boosts to relevance.
func finalScore(rel float64, m *gitstore.Memory, o *Options, touched map[string]bool, cfg *config) (score, trust float64) {
	trust = m.EffectiveTrust(o.Now)
	if cfg != nil && cfg.noRerank {
		return rel, trust
	}
	s := rel * (0.5 + trust) * recency(m, o.Now)
	if o.Branch != "" && m.Anchor != nil && m.Anchor.Branch == o.Branch {
		s *= branchBoost
	}
	if touches(m, touched) {
		s *= touchedBoost
	}
	return s, trust
}

// topByRelevance keeps the k most relevant candidates above the floor, plus
// any tied with the last one, sorted by relevance; above counts every
// candidate over the floor. It selects with a k-sized heap, so a query
// matching most of a large store does not sort all of it.
func topByRelevance(cands []cand, floor float64, k int) (top []cand, above int) {
	if k <= 0 {
		k = 1
	}
	// min-heap of the k highest relevances seen
	h := make([]float64, 0, k)
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && h[r] < h[l] {
				m = r
			}
			if h[i] <= h[m] {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, c := range cands {
		if c.rel < floor {
			continue
		}
		above++
		switch {
		case len(h) < k:
			h = append(h, c.rel)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p] <= h[i] {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
		case c.rel > h[0]:
			h[0] = c.rel
			down(0)
		}
	}
	if above == 0 {
		return nil, 0
	}
	threshold := floor
	if len(h) == k {
		threshold = h[0]
	}
	for _, c := range cands {
		if c.rel >= floor && c.rel >= threshold {
			top = append(top, c)
		}
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].rel != top[j].rel {
			return top[i].rel > top[j].rel
		}
		return top[i].doc < top[j].doc
	})
	return top, above
}
