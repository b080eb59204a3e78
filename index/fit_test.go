package index

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The confidence is fitted here, on the tune split of every eval project
// (alone and with the unrelated memories), and nowhere else:
//
//	go test ./index -run TestFitConfidence -fit -v
//
// rewrites confidence_weights.go and prints the leave-one-project-out
// figures and the feature ablation; without -fit the test checks that the
// committed weights are what the data fits.

var fitFlag = flag.Bool("fit", false, "refit the confidence on the tune splits and rewrite confidence_weights.go")

// fitCandidate is one candidate of one tune query, with what the choice of
// thresholds needs: features, label and final score.
type fitCandidate struct {
	f        features
	relevant bool
	forbid   bool
	score    float64
	key      string
}

type fitQuery struct {
	project string
	kind    string
	expect  bool // the query expects a memory
	small   bool // asked of a small store
	cands   []fitCandidate
	// also are the candidates of the query's other phrasings, if any
	also [][]fitCandidate
}

// smallStoreSizes: besides each project's whole store (alone and
// crowded), its memories are cut into stores of these sizes, as a new
// repository holds a few memories, so that the confidence learns what
// evidence means where every word is rare.
var smallStoreSizes = []int{4, 8, 16}

// collectFit runs every query of a split of every project, alone, crowded
// and in small stores, with no decision, and keeps each candidate's
// evidence.
func collectFit(t *testing.T, suite *Suite, split string) []fitQuery {
	ctx := context.Background()
	var out []fitQuery
	for _, ds := range suite.Projects {
		var queries []EvalQuery
		for _, q := range ds.Queries {
			if q.Split == split {
				queries = append(queries, q)
			}
		}
		for _, crowded := range []bool{false, true} {
			run, err := newEvalRun(ctx, ds, suite, crowded, EvalOptions{})
			require.NoError(t, err)
			out = append(out, run.fitQueries(t, queries, false)...)
		}
		for _, size := range smallStoreSizes {
			rng := rand.New(rand.NewPCG(uint64(size), uint64(len(ds.Memories))))
			order := rng.Perm(len(ds.Memories))
			offtopic := 0
			for start := 0; start < len(order); start += size {
				part := &Dataset{Name: ds.Name}
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
				// the queries a memory of the part answers, and two
				// questions it does not, in turn
				var qs []EvalQuery
				var others []EvalQuery
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
					q.Expect = nil
					qs = append(qs, q)
					offtopic += 7
				}
				run, err := newEvalRun(ctx, part, &Suite{Projects: []*Dataset{part}}, false, EvalOptions{})
				require.NoError(t, err)
				out = append(out, run.fitQueries(t, qs, true)...)
			}
		}
	}
	return out
}

func (run *evalRun) fitQueries(t *testing.T, queries []EvalQuery, small bool) []fitQuery {
	var out []fitQuery
	for _, q := range queries {
		fq := fitQuery{project: run.ds.Name, kind: q.Kind, expect: len(q.Expect) > 0, small: small}
		if small && !fq.expect {
			fq.kind = "offtopic"
		}
		fq.cands = run.fitCands(t, q.Query, q)
		if !small {
			for _, a := range phrasings("", q.Also) {
				fq.also = append(fq.also, run.fitCands(t, a, q))
			}
		}
		out = append(out, fq)
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

// fitCands are the candidates of one phrasing of a query, labelled by the
// query's expectations.
func (run *evalRun) fitCands(t *testing.T, phrasing string, q EvalQuery) []fitCandidate {
	c := run.corpus
	o := Options{Limit: 3, Now: evalEpoch.Add(time.Hour)}
	cands, qs, err := score(c, QueryTerms(phrasing), nil)
	require.NoError(t, err)
	top, _ := topByRelevance(cands, 0, max(minCandidates, candidatesPerResult*o.Limit))
	kept, err := weighAll(c, top, &o)
	require.NoError(t, err)
	var best [2]float64
	for i := 0; i < len(kept) && i < 2; i++ {
		best[i] = kept[i].cd.rel
	}
	var out []fitCandidate
	for i, k := range kept {
		s, _ := finalScore(k.cd.rel, k.en.m, &o, nil, nil)
		key := run.keyOf[k.en.m.ID]
		out = append(out, fitCandidate{
			f: featuresOf(k.cd, qs, best, i == 0), relevant: slices.Contains(q.Expect, key),
			forbid: slices.Contains(q.Forbid, key), score: s, key: key,
		})
	}
	return out
}

// only keeps the queries asked of small stores (small) or of whole ones.
func only(qs []fitQuery, small bool) []fitQuery {
	var out []fitQuery
	for _, q := range qs {
		if q.small == small {
			out = append(out, q)
		}
	}
	return out
}

// fitLogistic fits weights (features then bias) by Newton's method with an
// L2 penalty on the feature weights; mask drops features (weight 0). The
// queries of small stores, many more than those of whole ones, weigh as
// much in all as those.
func fitLogistic(qs []fitQuery, mask [numFeatures]bool) [numFeatures + 1]float64 {
	const dim = numFeatures + 1
	const lambda = 1.0
	var w [dim]float64
	whole, small := len(only(qs, false)), len(only(qs, true))
	smallWeight := 1.0
	if small > 0 && whole > 0 {
		smallWeight = float64(whole) / float64(small)
	}
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
			qw := 1.0
			if q.small {
				qw = smallWeight
			}
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

// fitRates are the explicit point's rate per kind and the injection
// point's precision and recall, for the queries at given thresholds.
type fitRates struct {
	rate                map[string]float64
	precision, injected float64
	recall              float64
}

func evaluate(qs []fitQuery, w *[numFeatures + 1]float64, explicit, injection float64) fitRates {
	hits, n := map[string]int{}, map[string]int{}
	var rel, inj, wanted, got int
	for _, q := range qs {
		pick := func(t float64) []fitCandidate { return pickTop3(q.cands, w, t) }
		ex := pick(explicit)
		n[q.kind]++
		ok := !q.expect && len(ex) == 0
		for _, c := range ex {
			ok = ok || c.relevant
		}
		for _, c := range ex {
			ok = ok && !c.forbid
		}
		if ok {
			hits[q.kind]++
		}
		in := pick(injection)
		inj += len(in)
		any := false
		for _, c := range in {
			if c.relevant {
				rel++
				any = true
			}
		}
		if q.expect {
			wanted++
			if any {
				got++
			}
		}
	}
	r := fitRates{rate: map[string]float64{}, precision: 1, injected: float64(inj)}
	for k := range n {
		r.rate[k] = float64(hits[k]) / float64(n[k])
	}
	if inj > 0 {
		r.precision = float64(rel) / float64(inj)
	}
	if wanted > 0 {
		r.recall = float64(got) / float64(wanted)
	}
	return r
}

// objective sums answering (every shape of question weighing the same)
// and rejecting off-topic questions; the feature ablation compares it.
func (r fitRates) objective() float64 {
	sum, k := 0.0, 0
	for kind, v := range r.rate {
		if kind != "offtopic" {
			sum += v
			k++
		}
	}
	if k == 0 {
		return r.rate["offtopic"]
	}
	return 0.5*sum/float64(k) + 0.5*r.rate["offtopic"]
}

// offtopicRejection is the share of off-topic questions the explicit
// threshold must leave unanswered.
const offtopicRejection = 0.9

// injectionPrecision is the precision the injection threshold must reach.
const injectionPrecision = 0.9

// chooseThresholds (on the queries of whole stores, as the eval asks them)
// picks the lowest explicit threshold from which off-topic rejection stays
// at least offtopicRejection, and the lowest injection threshold from which
// precision stays at least injectionPrecision: each point answers as much
// as its bound allows.
func chooseThresholds(qs []fitQuery, w *[numFeatures + 1]float64) (explicit, injection float64) {
	explicit, injection = 0.99, 0.99
	for t := 0.99; t >= 0.05; t -= 0.01 {
		if evaluate(qs, w, t, 1).rate["offtopic"] < offtopicRejection {
			break
		}
		explicit = t
	}
	for t := 0.99; t >= 0.05; t -= 0.01 {
		if evaluate(qs, w, 1, t).precision < injectionPrecision {
			break
		}
		injection = t
	}
	return math.Round(explicit*100) / 100, math.Round(injection*100) / 100
}

// pickTop3 keeps the candidates at or over t, best score first, at most 3.
func pickTop3(cands []fitCandidate, w *[numFeatures + 1]float64, t float64) []fitCandidate {
	var out []fitCandidate
	for _, c := range cands {
		if confidenceOf(c.f, w) >= t {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// evaluateFused is the explicit point for the queries that have other
// phrasings: each phrasing's answer at threshold t, fused by reciprocal
// rank fusion as recall does (fuseHits), the first 3 judged.
func evaluateFused(qs []fitQuery, w *[numFeatures + 1]float64, t float64) map[string]float64 {
	hits, n := map[string]int{}, map[string]int{}
	for _, q := range qs {
		if len(q.also) == 0 {
			continue
		}
		score := map[string]float64{}
		byKey := map[string]fitCandidate{}
		var order []string
		for _, list := range append([][]fitCandidate{q.cands}, q.also...) {
			for rank, c := range pickTop3(list, w, t) {
				if _, ok := byKey[c.key]; !ok {
					byKey[c.key] = c
					order = append(order, c.key)
				}
				score[c.key] += 1 / float64(fusionK+rank+1)
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
		if len(order) > 3 {
			order = order[:3]
		}
		n[q.kind]++
		ok := !q.expect && len(order) == 0
		for _, k := range order {
			ok = ok || byKey[k].relevant
		}
		for _, k := range order {
			ok = ok && !byKey[k].forbid
		}
		if ok {
			hits[q.kind]++
		}
	}
	out := map[string]float64{}
	for k := range n {
		out[k] = float64(hits[k]) / float64(n[k])
	}
	return out
}

// chooseFusedThreshold picks, for recall with other phrasings, the lowest
// explicit threshold from which off-topic rejection stays at least
// offtopicRejection: each phrasing is another chance of a near-miss.
func chooseFusedThreshold(qs []fitQuery, w *[numFeatures + 1]float64) float64 {
	fused := 0.99
	for t := 0.99; t >= 0.05; t -= 0.01 {
		if evaluateFused(qs, w, t)["offtopic"] < offtopicRejection {
			break
		}
		fused = t
	}
	return math.Round(fused*100) / 100
}

func formatShapes(rate map[string]float64) string {
	var b strings.Builder
	for _, k := range EvalKinds {
		if v, ok := rate[k]; ok {
			fmt.Fprintf(&b, " %s %.2f", k, v)
		}
	}
	return b.String()
}

func formatRates(r fitRates) string {
	return fmt.Sprintf("%s | injection precision %.2f recall %.2f", formatShapes(r.rate), r.precision, r.recall)
}

func TestFitConfidence(t *testing.T) {
	suite, err := LoadSuite(evalDir())
	require.NoError(t, err)
	all := collectFit(t, suite, "tune")
	var none [numFeatures]bool
	w := fitLogistic(all, none)
	explicit, injection := chooseThresholds(only(all, false), &w)
	fused := chooseFusedThreshold(only(all, false), &w)

	var report strings.Builder
	fmt.Fprintf(&report, "fitted on %d tune queries of %d projects (alone and crowded)\n", len(all), len(suite.Projects))
	for i, name := range featureNames {
		fmt.Fprintf(&report, "  %-16s %+.4f\n", name, w[i])
	}
	fmt.Fprintf(&report, "  %-16s %+.4f\nthresholds: explicit %.2f, injection %.2f\n", "bias", w[numFeatures], explicit, injection)
	fmt.Fprintf(&report, "tune, whole stores:%s\n", formatRates(evaluate(only(all, false), &w, explicit, injection)))
	fmt.Fprintf(&report, "with other phrasings (threshold %.2f):%s\n", fused, formatShapes(evaluateFused(only(all, false), &w, fused)))
	fmt.Fprintf(&report, "tune, small stores:%s\n", formatRates(evaluate(only(all, true), &w, explicit, injection)))
	fmt.Fprintf(&report, "no decision (every candidate), whole stores:%s\n", formatRates(evaluate(only(all, false), &w, 0, 0)))
	// leave one project out: fit and choose on the others, measure on it
	lopo := func(mask [numFeatures]bool) map[string]fitRates {
		out := map[string]fitRates{}
		for _, ds := range suite.Projects {
			var train, test []fitQuery
			for _, q := range all {
				if q.project == ds.Name {
					test = append(test, q)
				} else {
					train = append(train, q)
				}
			}
			w := fitLogistic(train, mask)
			e, i := chooseThresholds(only(train, false), &w)
			out[ds.Name] = evaluate(only(test, false), &w, e, i)
			out[ds.Name+" (small stores)"] = evaluate(only(test, true), &w, e, i)
		}
		return out
	}
	per := lopo(none)
	fmt.Fprintln(&report, "leave one project out (tune split of the left-out project):")
	for _, ds := range suite.Projects {
		fmt.Fprintf(&report, "  %-12s%s\n", ds.Name, formatRates(per[ds.Name]))
		fmt.Fprintf(&report, "  %-12s%s\n", "  small", formatRates(per[ds.Name+" (small stores)"]))
	}
	fmt.Fprintln(&report, "feature ablation (refit without it; mean over left-out projects, whole and small stores, of the objective and the injection precision):")
	for f := -1; f < numFeatures; f++ {
		var mask [numFeatures]bool
		name := "all features"
		if f >= 0 {
			mask[f] = true
			name = "without " + featureNames[f]
		}
		per := lopo(mask)
		obj, prec := 0.0, 0.0
		for _, r := range per {
			obj += r.objective()
			prec += r.precision
		}
		fmt.Fprintf(&report, "  %-26s objective %.3f, injection precision %.3f\n", name, obj/float64(len(per)), prec/float64(len(per)))
	}
	t.Log("\n" + report.String())

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
	fmt.Fprintf(&src, "}\n\n// The operating points' thresholds, chosen on the tune splits; an explicit\n// recall with other phrasings uses fusedThreshold for each.\nconst (\n\tinjectionThreshold = %.2f\n\texplicitThreshold  = %.2f\n\tfusedThreshold     = %.2f\n)\n", injection, explicit, fused)
	if *fitFlag {
		require.NoError(t, os.WriteFile("confidence_weights.go", src.Bytes(), 0o644))
		return
	}
	committed, err := os.ReadFile("confidence_weights.go")
	require.NoError(t, err)
	require.Equal(t, string(committed), src.String(), "the committed confidence is not what the tune splits fit: run go test ./index -run TestFitConfidence -fit")
}

// TestExplainQuery prints, for the tune queries containing
// GIT_MEM_EXPLAIN, every candidate's features and confidence (expected
// ones marked *).
func TestExplainQuery(t *testing.T) {
	needle := os.Getenv("GIT_MEM_EXPLAIN")
	if needle == "" {
		t.Skip("set GIT_MEM_EXPLAIN to part of a tune query")
	}
	suite, err := LoadSuite(evalDir())
	require.NoError(t, err)
	ctx := context.Background()
	for _, ds := range suite.Projects {
		run, err := newEvalRun(ctx, ds, suite, os.Getenv("GIT_MEM_EXPLAIN_CROWDED") != "", EvalOptions{})
		require.NoError(t, err)
		for _, q := range ds.Queries {
			if q.Split != "tune" || !strings.Contains(q.Query, needle) {
				continue
			}
			terms := QueryTerms(q.Query)
			cands, qs, err := score(run.corpus, terms, nil)
			require.NoError(t, err)
			top, _ := topByRelevance(cands, 0, minCandidates)
			t.Logf("%s %q\n terms %v unknown %d", ds.Name, q.Query, terms, qs.unknown)
			for _, cd := range top {
				key, _ := run.corpus.external(cd.doc)
				en, _ := run.corpus.load(key)
				f := featuresOf(cd, qs, [2]float64{top[0].rel, top[min(1, len(top)-1)].rel}, cd.doc == top[0].doc)
				mark := " "
				if slices.Contains(q.Expect, run.keyOf[en.m.ID]) {
					mark = "*"
				}
				t.Logf("%s%s conf %.2f %v", mark, run.keyOf[en.m.ID], confidenceOf(f, &confidenceWeights), f)
			}
		}
	}
}
