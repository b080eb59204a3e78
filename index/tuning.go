package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Tuning switches parts of analysis and ranking off, or sets their
// constants, for the eval's ablations and the confidence's fit; nil is
// recall as it ships. Callers outside this package get one from
// Ablation.Tuning. A recall with a Tuning reads the snapshot or scans,
// never the engine's index, and fuses no vectors: what it measures is the
// lexical ranking alone.
type Tuning struct {
	noStem, noSplit, noThesaurus, noRerank, noPhrase, noConcepts bool
	// noConfidence returns every candidate over the candidate floor.
	noConfidence bool
	// noKeys ignores memories' retrieval keys.
	noKeys                  bool
	groupCap                float64
	candidateFloor          float64
	scoredGroups, longQuery int
	// synWeight overrides SynonymWeight, concept ConceptWeight.
	synWeight, concept float64
}

// analyzer is the analysis with the parts the configuration switches off.
func (c *Tuning) analyzer() analyzer {
	if c == nil {
		return analyzer{}
	}
	return analyzer{noStem: c.noStem, noSplit: c.noSplit, noPhrase: c.noPhrase}
}

func (c *Tuning) conceptWeightValue() float64 {
	if c == nil || c.concept == 0 {
		return ConceptWeight
	}
	return c.concept
}

func (c *Tuning) synWeightValue() float64 {
	if c == nil || c.synWeight == 0 {
		return SynonymWeight
	}
	return c.synWeight
}

func (c *Tuning) capValue() float64 {
	if c == nil || c.groupCap == 0 {
		return groupCap
	}
	return c.groupCap
}

func (c *Tuning) candidateFloorValue() float64 {
	if c == nil || c.candidateFloor == 0 {
		return candidateFloor
	}
	return c.candidateFloor
}

func (c *Tuning) scoredGroupsValue() int {
	if c == nil || c.scoredGroups == 0 {
		return scoredGroups
	}
	return min(c.scoredGroups, maxScoredGroups)
}

func (c *Tuning) longQueryValue() int {
	if c == nil || c.longQuery == 0 {
		return longQuery
	}
	return max(c.longQuery, 0)
}

// Ablation switches parts of recall off, comma-separated: "stem", "split",
// "thesaurus" (with the concept descriptions), "concepts", "phrase"
// (thesaurus phrases and question words such as "who"), "rerank" (trust,
// recency and boosts), "confidence" (every candidate is returned). The
// confidence's own features are ablated by refitting without them
// (TestFitConfidence).
type Ablation string

// Tuning is the tuning that switches those parts off; nil for none.
func (a Ablation) Tuning() (*Tuning, error) {
	if a == "" {
		return nil, nil
	}
	cfg := &Tuning{}
	for _, x := range strings.Split(string(a), ",") {
		switch strings.TrimSpace(x) {
		case "stem":
			cfg.noStem = true
		case "split":
			cfg.noSplit = true
		case "thesaurus":
			cfg.noThesaurus = true
		case "phrase":
			cfg.noPhrase = true
		case "concepts":
			cfg.noConcepts = true
		case "rerank":
			cfg.noRerank = true
		case "confidence":
			cfg.noConfidence = true
		case "":
		default:
			return nil, fmt.Errorf("%w: unknown ablation %q; use stem, split, thesaurus, concepts, phrase, rerank or confidence", memerr.ErrInvalid, x)
		}
	}
	return cfg, nil
}

// Scan is every memory of a set read once and indexed in memory, to rank
// many queries against stores that do not change between them (the
// eval's); it answers as Recall's scan would.
type Scan struct {
	c *scanCorpus
}

// NewScan reads and indexes every memory of the set with the analysis t
// leaves on.
func NewScan(ctx context.Context, set *gitstore.Set, t *Tuning) (*Scan, error) {
	entries, err := readEntries(ctx, set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	if err != nil {
		return nil, err
	}
	return &Scan{c: newScanCorpus(entries, t.analyzer())}, nil
}

// Rank ranks o.Query alone (not o.Also) from the scan as Recall would,
// without staleness or vectors. o.Now and o.Limit must be set.
func (s *Scan) Rank(o Options) ([]Hit, error) {
	hits, _, _, err := rankHits(s.c, o.Tuning.analyzer().queryTerms(o.Query), &o)
	return hits, err
}

// Recall ranks o.Query and its other phrasings o.Also one by one and fuses
// the answers, as Recall does.
func (s *Scan) Recall(o Options) ([]Hit, error) {
	var lists [][]Hit
	for _, q := range phrasings(o.Query, o.Also) {
		one, err := s.Rank(onePhrasing(o, q))
		if err != nil {
			return nil, err
		}
		lists = append(lists, one)
	}
	hits, _ := fuseHits(lists, o.Limit)
	return hits, nil
}
