package index

import "math"

// The confidence is the probability-like answer to "is this memory what the
// query is about?", a logistic model over evidence chosen so that neither a
// long prompt nor a large store by itself pushes a right answer down, and
// so that it means the same on text written anywhere: shares, rarities and
// absolute evidence, never a comparison with the other candidates. Its
// weights and thresholds are fitted on the tune parts of every source
// (confidence_weights.go, written by TestFitConfidence with -fit;
// fixtures/eval/README.md tells how).

// Point is an operating point: how sure recall must be before it answers.
type Point int

const (
	// Explicit serves a caller who asked (git mem recall, MCP memory_recall,
	// boot -- TASK), an agent that reads labels: every memory the ranking
	// finds with distinctive evidence (a candidate, see score), best first,
	// each labelled. A weak match shown as weak is useful; an answer
	// withheld is lost.
	Explicit Point = iota
	// Injection serves the hooks, which add memories to a prompt nobody
	// asked them about: strong matches only, precision first.
	Injection
	// Unfiltered returns every candidate with its confidence (dedupe).
	Unfiltered
)

// String names the operating point.
func (p Point) String() string {
	switch p {
	case Injection:
		return "injection"
	case Unfiltered:
		return "unfiltered"
	}
	return "explicit"
}

// Threshold is the least confidence a memory needs at this point.
func (p Point) Threshold() float64 {
	if p == Injection {
		return injectionThreshold
	}
	return 0
}

// The labels of a confidence, for agents and people.
const (
	LabelStrong = "strong"
	LabelLikely = "likely"
	LabelWeak   = "weak"
)

// ConfidenceLabel names a confidence: "strong" from strongThreshold on
// (what the prompt hook injects), "likely" from likelyThreshold on (more
// often relevant than not, on every source), "weak" under.
func ConfidenceLabel(c float64) string {
	switch {
	case c >= strongThreshold:
		return LabelStrong
	case c >= likelyThreshold:
		return LabelLikely
	}
	return LabelWeak
}

// LabelThreshold is the least confidence a label is given from (0 for
// weak), so that a caller that wants only likely-or-better matches asks
// recall for them and the others are never read.
func LabelThreshold(label string) float64 {
	switch label {
	case LabelStrong:
		return strongThreshold
	case LabelLikely:
		return likelyThreshold
	}
	return 0
}

// injectionThreshold is the least confidence the prompt hook injects.
const injectionThreshold = strongThreshold

// The features, in the order of the fitted weights. Each is evidence the
// candidate carries by itself, a share or a rarity rather than a sum or a
// comparison with the other candidates: several memories about one subject
// are normal (an old and a new owner, several gotchas about one file), and
// a second good answer must not lower the first's confidence, nor the
// first's the second's.
const (
	fRelevance   = iota // relevance, capped at 1.5
	fKnownShare         // share of the scored query groups' weight matched
	fDocCoverage        // share of the memory's words the query matches
	fMatched            // ln(1 + groups matched)
	fRarity             // idf of the rarest group matched / ln(1 + N)
	fExactShare         // share of the matched weight matched by the words themselves
	fUnknown            // share of the query's words no memory contains
	fLength             // ln(query words analysed)
	fMass               // ln(1 + the idf matched, summed over the groups matched)
	numFeatures
)

// featureNames name the features for the fitting report.
var featureNames = [numFeatures]string{"relevance", "known share", "memory coverage", "ln matched", "rarity", "exact share", "unknown share", "ln length", "ln mass"}

type features [numFeatures]float64

// featuresOf computes a candidate's evidence.
func featuresOf(cd cand, qs *queryStats) features {
	var f features
	f[fRelevance] = min(cd.rel, 1.5)
	known := 0.0
	for _, r := range qs.refs {
		known += r
	}
	if known > 0 {
		f[fKnownShare] = cd.matchedRef / known
	}
	f[fDocCoverage] = cd.coverage
	f[fMatched] = math.Log1p(float64(cd.matched))
	f[fRarity] = cd.maxRef / math.Log1p(float64(max(qs.n, idfPriorDocs)))
	if cd.matchedRef > 0 {
		f[fExactShare] = cd.exactRef / cd.matchedRef
	}
	if qs.groups > 0 {
		f[fUnknown] = float64(qs.unknown) / float64(qs.groups)
		f[fLength] = math.Log(float64(qs.groups))
	}
	f[fMass] = math.Log1p(cd.matchedRef)
	return f
}

// confidenceOf is σ(w·f + b).
func confidenceOf(f features, w *[numFeatures + 1]float64) float64 {
	z := w[numFeatures]
	for i, x := range f {
		z += w[i] * x
	}
	return 1 / (1 + math.Exp(-z))
}
