package index

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

// The confidence is fitted here, on the tune parts of every source, and
// nowhere else:
//
//	go test ./index -run TestFitConfidence -fit -v
//
// rewrites confidence_weights.go and prints the fit, the
// leave-one-source-out figures, the calibration and the feature ablation;
// without -fit the test checks that the committed weights are what the
// data fits. A source is a body of text written by one process: the
// project's own imagined projects (fixtures/eval), and each directory of
// the shared recall sets (LoCoMo conversations, real commit histories),
// which nobody on the project wrote.

var fitFlag = flag.Bool("fit", false, "refit the confidence on the tune parts and rewrite confidence_weights.go")

// ownSource names the project's own eval among the sources.
const ownSource = "git-mem"

// fitK is the k of recall@k the decision is fitted for: the shared
// sets' (evaluation.SetK).
const fitK = 5

// fitCandidate is one candidate of one tune query, with what the choice of
// thresholds needs: features, label and final score before the confidence
// weighs in.
type fitCandidate struct {
	f        features
	relevant bool
	forbid   bool
	score    float64
	key      string
}

type fitQuery struct {
	source string
	kind   string
	// relevant counts the query's relevant memories (0: off-topic)
	relevant int
	small    bool // asked of a small store
	cands    []fitCandidate
}

// smallStoreSizes: besides each own project's whole store (alone and
// crowded), its memories are cut into stores of these sizes, as a new
// repository holds a few memories, so that the confidence learns what
// evidence means where every word is rare.
var smallStoreSizes = []int{4, 8, 16}

// setsDir is where the shared recall sets are: shared/eval beside the
// project, or GIT_MEM_SETS.
func setsDir() string {
	if d := os.Getenv("GIT_MEM_SETS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "eval")
}

// loadSharedSets loads the shared recall sets, or skips the test where
// they are not (they are kept beside the project, not in it); CI has them
// and fails without them.
func loadSharedSets(t *testing.T) []*dataset.Dataset {
	dir := setsDir()
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the shared recall sets are missing (%v): CI runs beside them", err)
		}
		t.Skipf("no shared recall sets at %s (set GIT_MEM_SETS)", dir)
	}
	sets, err := dataset.LoadSets(dir)
	require.NoError(t, err)
	return sets
}

// collectFit runs every query of a split of every source with no
// decision, and keeps each candidate's evidence: the own projects alone,
// crowded and in small stores, the shared sets as they are.
func collectFit(t *testing.T, suite *dataset.Suite, sets []*dataset.Dataset, split string) []fitQuery {
	var out []fitQuery
	for _, ds := range suite.Projects {
		var queries []dataset.Query
		for _, q := range ds.Queries {
			if q.Split == split {
				queries = append(queries, q)
			}
		}
		for _, crowded := range []bool{false, true} {
			var extra []dataset.Memory
			if crowded {
				extra = suite.Distractors
			}
			run := newFitRun(t, ds, extra)
			out = append(out, run.fitQueries(t, ownSource, queries, false)...)
		}
		for _, size := range smallStoreSizes {
			out = append(out, smallStoreFit(t, ds, queries, size)...)
		}
	}
	for _, ds := range sets {
		var queries []dataset.Query
		for _, q := range ds.Queries {
			if q.Split == split && q.Kind != "adversarial" {
				queries = append(queries, q)
			}
		}
		run := newFitRun(t, ds, nil)
		out = append(out, run.fitQueries(t, ds.Source, queries, false)...)
	}
	return out
}

// smallStoreFit cuts a project's memories into stores of size memories and
// asks each the queries one of its memories answers, and two it does not.
func smallStoreFit(t *testing.T, ds *dataset.Dataset, queries []dataset.Query, size int) []fitQuery {
	var out []fitQuery
	rng := rand.New(rand.NewPCG(uint64(size), uint64(len(ds.Memories))))
	order := rng.Perm(len(ds.Memories))
	offtopic := 0
	for start := 0; start < len(order); start += size {
		part := &dataset.Dataset{Name: ds.Name}
		in := map[string]bool{}
		for _, i := range order[start:min(start+size, len(order))] {
			in[ds.Memories[i].Key] = true
		}
		for _, m := range ds.Memories {
			if in[m.Key] {
				if !in[m.Supersedes] {
					m.Supersedes = ""
				}
				part.Memories = append(part.Memories, m)
			}
		}
		var qs, others []dataset.Query
		for _, q := range queries {
			answered := false
			for _, k := range q.Expect {
				answered = answered || in[k]
			}
			if answered {
				qs = append(qs, q)
			} else {
				others = append(others, q)
			}
		}
		for k := 0; k < 2 && len(others) > 0; k++ {
			q := others[offtopic%len(others)]
			q.Expect, q.Kind = nil, "offtopic"
			qs = append(qs, q)
			offtopic += 7
		}
		run := newFitRun(t, part, nil)
		out = append(out, run.fitQueries(t, ownSource, qs, true)...)
	}
	return out
}

// fitRun is one source's memories written into one store and scanned.
type fitRun struct {
	st     *dataset.Stored
	corpus loader
}

func newFitRun(t *testing.T, ds *dataset.Dataset, extra []dataset.Memory) *fitRun {
	ctx := context.Background()
	st, err := dataset.Write(ctx, ds, dataset.WriteOptions{Extra: extra})
	require.NoError(t, err)
	entries, err := readEntries(ctx, st.Set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	require.NoError(t, err)
	return &fitRun{st: st, corpus: newScanCorpus(entries, analyzer{})}
}

func (run *fitRun) fitQueries(t *testing.T, source string, queries []dataset.Query, small bool) []fitQuery {
	var out []fitQuery
	for _, q := range queries {
		out = append(out, fitQuery{source: source, kind: q.Kind, relevant: len(q.Expect), small: small, cands: run.fitCands(t, q)})
	}
	return out
}

// weighAll weighs every candidate, in order: what a fit learns from.
func weighAll(c loader, top []cand, o *Options) ([]weighed, error) {
	w := weigher{c: c, o: o, seen: map[string]bool{}}
	var out []weighed
	for i := range top {
		k, err := w.weigh(&top[i])
		if err != nil {
			return nil, err
		}
		if k != nil {
			out = append(out, *k)
		}
	}
	return out, nil
}

// fitCands are the candidates recall weighs for a query, labelled by the
// query's expectations.
func (run *fitRun) fitCands(t *testing.T, q dataset.Query) []fitCandidate {
	c := run.corpus
	o := Options{Limit: fitK, Now: run.st.QueryNow(q)}
	cands, qs, err := score(c, QueryTerms(q.Query), nil)
	require.NoError(t, err)
	top, _ := topByRelevance(cands, 0, max(minCandidates, candidatesPerResult*o.Limit))
	kept, err := weighAll(c, top, &o)
	require.NoError(t, err)
	var out []fitCandidate
	for _, k := range kept {
		s, _ := finalScore(k.cd.rel, 1, k.en.m, &o, nil, nil)
		key := run.st.KeyOf[k.en.m.ID]
		out = append(out, fitCandidate{
			f: featuresOf(k.cd, qs), relevant: slices.Contains(q.Expect, key),
			forbid: slices.Contains(q.Forbid, key), score: s, key: key,
		})
	}
	return out
}

// sourcesOf lists the sources of the queries, in order.
func sourcesOf(qs []fitQuery) []string {
	var out []string
	for _, q := range qs {
		if !slices.Contains(out, q.source) {
			out = append(out, q.source)
		}
	}
	sort.Strings(out)
	return out
}

// fitLogistic fits weights (features then bias) by Newton's method with an
// L2 penalty on the feature weights; mask drops features (weight 0). Every
// source weighs as much in all as any other, and within the own source
// the small stores as much as the whole ones: no source's way of writing
// may dominate what evidence means.
func fitLogistic(qs []fitQuery, mask [numFeatures]bool) [numFeatures + 1]float64 {
	const dim = numFeatures + 1
	const lambda = 1.0
	count := map[[2]any]int{}
	for _, q := range qs {
		count[[2]any{q.source, q.small}] += len(q.cands)
	}
	parts := map[string]int{}
	for k := range count {
		parts[k[0].(string)]++
	}
	total := 0
	for _, n := range count {
		total += n
	}
	weightOf := func(q fitQuery) float64 {
		n := count[[2]any{q.source, q.small}]
		return float64(total) / float64(len(parts)*parts[q.source]*n)
	}
	var w [dim]float64
	x := func(f features, i int) float64 {
		if i == numFeatures {
			return 1
		}
		if mask[i] {
			return 0
		}
		return f[i]
	}
	for iter := 0; iter < 100; iter++ {
		var g [dim]float64
		var h [dim][dim]float64
		for _, q := range qs {
			qw := weightOf(q)
			for _, c := range q.cands {
				p := confidenceOf(c.f, &w)
				y := 0.0
				if c.relevant {
					y = 1
				}
				for i := 0; i < dim; i++ {
					xi := x(c.f, i)
					g[i] += qw * (p - y) * xi
					for j := 0; j < dim; j++ {
						h[i][j] += qw * p * (1 - p) * xi * x(c.f, j)
					}
				}
			}
		}
		for i := 0; i < numFeatures; i++ {
			g[i] += lambda * w[i]
			h[i][i] += lambda
		}
		for i := 0; i < dim; i++ {
			h[i][i] += 1e-9
		}
		step := solve(h, g)
		change := 0.0
		for i := range w {
			w[i] -= step[i]
			change = math.Max(change, math.Abs(step[i]))
		}
		if change < 1e-10 {
			break
		}
	}
	for i := 0; i < numFeatures; i++ {
		if mask[i] {
			w[i] = 0
		}
	}
	return w
}

// solve solves h·x = g by Gaussian elimination with partial pivoting.
func solve(h [numFeatures + 1][numFeatures + 1]float64, g [numFeatures + 1]float64) [numFeatures + 1]float64 {
	const n = numFeatures + 1
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		for r := c + 1; r < n; r++ {
			f := h[r][c] / h[c][c]
			for k := c; k < n; k++ {
				h[r][k] -= f * h[c][k]
			}
			g[r] -= f * g[c]
		}
	}
	var x [n]float64
	for r := n - 1; r >= 0; r-- {
		s := g[r]
		for k := r + 1; k < n; k++ {
			s -= h[r][k] * x[k]
		}
		x[r] = s / h[r][r]
	}
	return x
}

// fitPoints are the thresholds chosen: likely, and strong (the injection
// point); floor is what explicit recall leaves out (0: nothing, as recall
// does; other floors are what git mem recall --min-confidence does).
type fitPoints struct{ floor, likely, strong float64 }

// fitRates are what the decision does to one source's queries.
type fitRates struct {
	// kept is, per answerable kind, explicit recall@k over the ranking's
	kept map[string]float64
	// recall is, per kind, explicit recall@k (off-topic: share with nothing)
	recall map[string]float64
	// offNothing and offNoLabel: the share of off-topic queries that get
	// nothing, and nothing labelled better than weak (-1: none asked)
	offNothing, offNoLabel float64
	// precision and hit of the injection point (strong); likelyRelevant
	// the share of likely-or-better results of explicit recall that are
	// relevant (-1: none), of likely of them
	precision, injected, injHit float64
	likelyRelevant, likely      float64
}

// pick keeps the candidates at or over t, best score first (as finalScore
// weighs in the confidence), at most k.
func pick(cands []fitCandidate, w *[numFeatures + 1]float64, t float64, k int) []fitCandidate {
	var out []fitCandidate
	var score []float64
	for _, c := range cands {
		if conf := confidenceOf(c.f, w); conf >= t {
			out = append(out, c)
			score = append(score, c.score*math.Sqrt(conf))
		}
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	sorted := make([]fitCandidate, 0, min(k, len(out)))
	for _, i := range order[:min(k, len(out))] {
		sorted = append(sorted, out[i])
	}
	return sorted
}

func evaluate(qs []fitQuery, w *[numFeatures + 1]float64, p fitPoints) fitRates {
	rankRecall, exRecall, n := map[string]float64{}, map[string]float64{}, map[string]int{}
	var off, offNothing, offNoLabel, inj, injRel, wanted, injHit, likely, likelyRel int
	for _, q := range qs {
		if q.small {
			continue
		}
		all := pick(q.cands, w, 0, fitK)
		ex := pick(q.cands, w, p.floor, fitK)
		in := pick(q.cands, w, p.strong, fitK)
		n[q.kind]++
		labelled := false
		for _, c := range ex {
			conf := confidenceOf(c.f, w)
			if conf >= p.likely {
				labelled = true
				likely++
				if c.relevant {
					likelyRel++
				}
			}
		}
		if q.relevant == 0 {
			off++
			if len(ex) == 0 {
				offNothing++
			}
			if !labelled {
				offNoLabel++
			}
		} else {
			count := func(cs []fitCandidate) float64 {
				f := 0
				for _, c := range cs {
					if c.relevant && !c.forbid {
						f++
					}
				}
				return float64(f) / float64(q.relevant)
			}
			rankRecall[q.kind] += count(all)
			exRecall[q.kind] += count(ex)
			wanted++
			if count(in) > 0 {
				injHit++
			}
		}
		inj += len(in)
		for _, c := range in {
			if c.relevant {
				injRel++
			}
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return -1
		}
		return float64(a) / float64(b)
	}
	r := fitRates{kept: map[string]float64{}, recall: map[string]float64{}, precision: 1, injected: float64(inj),
		offNothing: ratio(offNothing, off), offNoLabel: ratio(offNoLabel, off),
		likelyRelevant: ratio(likelyRel, likely), likely: float64(likely), injHit: ratio(injHit, wanted)}
	for k := range n {
		if k == "offtopic" {
			r.recall[k] = r.offNothing
			continue
		}
		r.recall[k] = exRecall[k] / float64(n[k])
		r.kept[k] = 1
		if rankRecall[k] > 0 {
			r.kept[k] = exRecall[k] / rankRecall[k]
		}
	}
	if inj > 0 {
		r.precision = float64(injRel) / float64(inj)
	}
	return r
}

// The bounds the labels are chosen for, on every training source, each
// with a margin over what a source no threshold was chosen on must reach:
// results labelled strong (what the prompt hook injects) are relevant
// strongBound of the time (0.85 asked); results labelled likely or better
// are relevant more often than not (likelyBound), and off-topic questions
// get nothing labelled likely or better offtopicBound of the time (0.90
// asked).
const (
	strongBound    = 0.90
	likelyBound    = 0.60
	offtopicBound  = 0.93
	thresholdStep  = 0.01
	thresholdLimit = 0.99
	// minLabelled: fewer results so labelled on a source say nothing yet
	// about their precision there
	minLabelled = 10
)

// chooseThresholds picks, on the training queries, the lowest strong
// threshold from which every source's strong results are relevant at
// least strongBound of the time, and the lowest likely threshold under it
// from which every source keeps likelyBound and offtopicBound (a source
// with fewer than minLabelled results so labelled is not yet held to the
// precision bounds).
func chooseThresholds(qs []fitQuery, w *[numFeatures + 1]float64) fitPoints {
	bySource := map[string][]fitQuery{}
	for _, q := range qs {
		bySource[q.source] = append(bySource[q.source], q)
	}
	every := func(p fitPoints, ok func(fitRates) bool) bool {
		for _, sq := range bySource {
			if !ok(evaluate(sq, w, p)) {
				return false
			}
		}
		return true
	}
	p := fitPoints{strong: thresholdLimit}
	for t := thresholdLimit; t >= thresholdStep; t -= thresholdStep {
		if !every(fitPoints{likely: t, strong: t}, func(r fitRates) bool { return r.injected < minLabelled || r.precision >= strongBound }) {
			break
		}
		p.strong = t
	}
	p.likely = p.strong
	for t := p.strong; t >= thresholdStep; t -= thresholdStep {
		ok := every(fitPoints{likely: t, strong: p.strong}, func(r fitRates) bool {
			return (r.likely < minLabelled || r.likelyRelevant >= likelyBound) && (r.offNoLabel < 0 || r.offNoLabel >= offtopicBound)
		})
		if !ok {
			break
		}
		p.likely = t
	}
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	return fitPoints{likely: round(p.likely), strong: round(p.strong)}
}

func formatRates(r fitRates) string {
	var b strings.Builder
	var kinds []string
	for k := range r.recall {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if k == "offtopic" {
			fmt.Fprintf(&b, " offtopic nothing %.2f / no label %.2f;", r.offNothing, r.offNoLabel)
			continue
		}
		fmt.Fprintf(&b, " %s %.3f (kept %.3f);", k, r.recall[k], r.kept[k])
	}
	fmt.Fprintf(&b, " injection (strong) precision %.2f of %.0f, hit %.2f; likely or better relevant %.2f of %.0f", r.precision, r.injected, r.injHit, r.likelyRelevant, r.likely)
	return b.String()
}

// fitReport fits on the queries, leaves each source out in turn, and
// ablates each feature; it returns the weights, the thresholds and the
// report.
func fitReport(all []fitQuery) ([numFeatures + 1]float64, fitPoints, string) {
	var none [numFeatures]bool
	w := fitLogistic(all, none)
	p := chooseThresholds(all, &w)
	sources := sourcesOf(all)
	var report strings.Builder
	fmt.Fprintf(&report, "fitted on %d tune queries of %d sources (%s)\n", len(all), len(sources), strings.Join(sources, ", "))
	for i, name := range featureNames {
		fmt.Fprintf(&report, "  %-16s %+.4f\n", name, w[i])
	}
	fmt.Fprintf(&report, "  %-16s %+.4f\nthresholds: likely %.2f, strong %.2f\n", "bias", w[numFeatures], p.likely, p.strong)
	bySource := func(qs []fitQuery, src string) []fitQuery {
		var out []fitQuery
		for _, q := range qs {
			if q.source == src {
				out = append(out, q)
			}
		}
		return out
	}
	for _, src := range sources {
		fmt.Fprintf(&report, "tune, %s:%s\n", src, formatRates(evaluate(bySource(all, src), &w, p)))
	}
	lsoo := func(mask [numFeatures]bool) map[string]fitRates {
		out := map[string]fitRates{}
		for _, src := range sources {
			var train []fitQuery
			for _, q := range all {
				if q.source != src {
					train = append(train, q)
				}
			}
			w := fitLogistic(train, mask)
			out[src] = evaluate(bySource(all, src), &w, chooseThresholds(train, &w))
		}
		return out
	}
	fmt.Fprintln(&report, "leave one source out (fit and thresholds on the others, measured on its tune part):")
	per := lsoo(none)
	for _, src := range sources {
		fmt.Fprintf(&report, "  %-8s%s\n", src, formatRates(per[src]))
	}
	fmt.Fprintln(&report, "feature ablation (refit without it, leave one source out; worst injection precision, mean precision and hit over the sources):")
	for f := -1; f < numFeatures; f++ {
		var mask [numFeatures]bool
		name := "all features"
		if f >= 0 {
			mask[f] = true
			name = "without " + featureNames[f]
		}
		worst, prec, hit := 1.0, 0.0, 0.0
		per := lsoo(mask)
		for _, r := range per {
			worst = math.Min(worst, r.precision)
			prec += r.precision
			hit += r.injHit
		}
		fmt.Fprintf(&report, "  %-26s worst %.3f, precision %.3f, hit %.3f\n", name, worst, prec/float64(len(per)), hit/float64(len(per)))
	}
	return w, p, report.String()
}

func TestFitConfidence(t *testing.T) {
	suite, err := dataset.LoadSuite(evalDir())
	require.NoError(t, err)
	sets := loadSharedSets(t)
	all := collectFit(t, suite, sets, "tune")
	w, p, report := fitReport(all)
	t.Log("\n" + report)

	var src bytes.Buffer
	src.WriteString("// Code generated by TestFitConfidence -fit; DO NOT EDIT.\n\npackage index\n\n")
	src.WriteString("// confidenceWeights are the fitted weights of the features, then the bias.\n")
	src.WriteString("var confidenceWeights = [numFeatures + 1]float64{")
	for i, x := range w {
		if i > 0 {
			src.WriteString(", ")
		}
		fmt.Fprintf(&src, "%.4f", x)
	}
	fmt.Fprintf(&src, "}\n\n// The labels' thresholds, chosen on the tune parts of every source (the\n// prompt hook injects strong memories only).\nconst (\n\tlikelyThreshold = %.2f\n\tstrongThreshold = %.2f\n)\n", p.likely, p.strong)
	if *fitFlag {
		require.NoError(t, os.WriteFile("confidence_weights.go", src.Bytes(), 0o644))
		return
	}
	committed, err := os.ReadFile("confidence_weights.go")
	require.NoError(t, err)
	require.Equal(t, string(committed), src.String(), "the committed confidence is not what the tune parts fit: run go test ./index -run TestFitConfidence -fit")
}
