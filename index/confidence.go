package index

import "math"

// The confidence is the probability-like answer to "is this memory what the
// query is about?", a logistic model over evidence chosen so that neither a
// long prompt nor a large store by itself pushes a right answer down: shares
// and ratios, not raw sums. Its weights and the two thresholds are fitted on
// the tune splits of every eval project (confidence_weights.go, written by
// TestFitConfidence with -fit; fixtures/eval/README.md tells how).

// Point is an operating point: how sure recall must be before it answers.
type Point int

const (
	// Explicit serves a caller who asked (git mem recall, MCP memory_recall,
	// boot -- TASK): what clears a lower threshold, best first, and still
	// nothing for an off-topic question.
	Explicit Point = iota
	// Injection serves the hooks, which add memories to a prompt nobody
	// asked them about: precision first.
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

// Threshold is the least confidence a memory needs at this point, for one
// phrasing of the need.
func (p Point) Threshold() float64 {
	switch p {
	case Injection:
		return injectionThreshold
	case Unfiltered:
		return 0
	}
	return explicitThreshold
}

// ConfidenceLabel names a confidence for people: "likely" from the
// injection threshold on, "possible" from the explicit one, "weak" under.
func ConfidenceLabel(c float64) string {
	switch {
	case c >= injectionThreshold:
		return "likely"
	case c >= explicitThreshold:
		return "possible"
	}
	return "weak"
}

// The features, in the order of the fitted weights.
const (
	fRelevance   = iota // relevance, capped at 1.5
	fKnownShare         // share of the scored query groups' weight matched
	fDocCoverage        // share of the memory's words the query matches
	fMatched            // ln(1 + groups matched)
	fRarity             // idf of the rarest group matched / ln(1 + N)
	fExactShare         // share of the matched weight matched by the words themselves
	fGap                // relevance / the best candidate's relevance
	fUnknown            // share of the query's words no memory contains
	fLength             // ln(query words analysed)
	fAllMatched         // 1 when every scored group of a query of two or more matched
	fMargin             // the best candidate's lead over the second: 1 - second/best (0 for the others)
	numFeatures
)

// featureNames name the features for the fitting report.
var featureNames = [numFeatures]string{"relevance", "known share", "memory coverage", "ln matched", "rarity", "exact share", "gap to best", "unknown share", "ln length", "all matched", "margin"}

type features [numFeatures]float64

// featuresOf computes a candidate's evidence; best is the relevance of the
// best and the second best candidates that may be returned, first whether
// this is the best.
func featuresOf(cd cand, qs *queryStats, best [2]float64, first bool) features {
	relTop := best[0]
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
	if relTop > 0 {
		f[fGap] = cd.rel / relTop
	}
	if qs.groups > 0 {
		f[fUnknown] = float64(qs.unknown) / float64(qs.groups)
		f[fLength] = math.Log(float64(qs.groups))
	}
	if qs.scored >= 2 && cd.matched == qs.scored {
		f[fAllMatched] = 1
	}
	if first && relTop > 0 {
		f[fMargin] = 1 - best[1]/relTop
	}
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
