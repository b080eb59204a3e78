package evaluation

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

// Recall sets written elsewhere (the shared format: one JSON file a set,
// several relevant memories a query, optional dates and paths), measured
// per source: a source is a body of text written by one process (a public
// benchmark, real commit histories, the project's own imagined projects).
// A set's source is the directory it sits in under the root given.
//
// Each query is recalled four ways, so that what the decision costs is
// always on screen:
//
//   - "bm25": plain BM25 over the same memories (words as they are, no
//     stemming, synonyms or re-ranking), the reference;
//   - "ranking": git-mem's ranking with no threshold;
//   - "explicit": the explicit point at its defaults (what git mem recall,
//     MCP memory_recall and boot -- TASK return), with its labels;
//   - "injection": the prompt hook's point (likely or better only).
//
// recall@k is |top k ∩ relevant| / |relevant|, hit@k at least one relevant
// in the top k. An off-topic query (no relevant memory) is right when
// nothing comes back ("nothing") and, less strictly, when nothing comes
// back labelled better than weak ("no label").

// SetK is the k of recall@k for the shared sets.
const SetK = 5

// The systems a set is recalled with.
const (
	SystemBM25      = "bm25"
	SystemRanking   = "ranking"
	SystemExplicit  = "explicit"
	SystemInjection = "injection"
)

// SetSystems lists the systems in report order.
var SetSystems = []string{SystemBM25, SystemRanking, SystemExplicit, SystemInjection}

// SetRow is what one system did on one kind of query of one split of a set.
type SetRow struct {
	Source string `json:"source"`
	Set    string `json:"set"`
	Kind   string `json:"kind"`
	Split  string `json:"split"`
	System string `json:"system"`
	SetCounts
}

// SetCounts are a row's figures, which add up across rows.
type SetCounts struct {
	// N counts the queries; Recall sums their recall@k; Hits counts those
	// with a relevant memory in the top k (queries with relevant memories).
	N      int     `json:"n"`
	Recall float64 `json:"recall"`
	Hits   int     `json:"hits"`
	// Nothing counts the queries that got nothing; NoLabel those that got
	// nothing labelled better than weak.
	Nothing int `json:"nothing"`
	NoLabel int `json:"no_label"`
	// Returned and RelevantHits count the memories returned and, of them,
	// the relevant ones (precision); Likely and LikelyRelevant the same for
	// those labelled likely or strong (calibration).
	Returned       int `json:"returned"`
	RelevantHits   int `json:"relevant"`
	Likely         int `json:"likely"`
	LikelyRelevant int `json:"likely_relevant"`
}

func (c *SetCounts) plus(o SetCounts) {
	c.N += o.N
	c.Recall += o.Recall
	c.Hits += o.Hits
	c.Nothing += o.Nothing
	c.NoLabel += o.NoLabel
	c.Returned += o.Returned
	c.RelevantHits += o.RelevantHits
	c.Likely += o.Likely
	c.LikelyRelevant += o.LikelyRelevant
}

// RecallAt is the mean recall@k.
func (r SetRow) RecallAt() float64 {
	if r.N == 0 {
		return 0
	}
	return r.Recall / float64(r.N)
}

// Precision is the share of returned memories that are relevant (1 when
// nothing was returned).
func (r SetRow) Precision() float64 {
	if r.Returned == 0 {
		return 1
	}
	return float64(r.RelevantHits) / float64(r.Returned)
}

// SetReport is what RunSets measured.
type SetReport struct {
	Rows []SetRow `json:"rows"`
}

// SetFilter selects rows; an empty field matches any value, Kind
// "answerable" every answerable kind.
type SetFilter struct {
	Source, Set, Kind, Split, System string
}

func (f SetFilter) match(r SetRow) bool {
	kind := f.Kind == "" || f.Kind == r.Kind || f.Kind == "answerable" && dataset.Answerable(r.Kind)
	return kind && (f.Source == "" || f.Source == r.Source) && (f.Set == "" || f.Set == r.Set) &&
		(f.Split == "" || f.Split == r.Split) && (f.System == "" || f.System == r.System)
}

// Sum adds up the rows a filter selects.
func (rep *SetReport) Sum(f SetFilter) SetRow {
	out := SetRow{Source: f.Source, Set: f.Set, Kind: f.Kind, Split: f.Split, System: f.System}
	for _, r := range rep.Rows {
		if f.match(r) {
			out.plus(r.SetCounts)
		}
	}
	return out
}

// SetOptions configure RunSets.
type SetOptions struct {
	// Splits, when set, limits the run to these splits (tune, test).
	Splits []string
	cfg    *index.Tuning
}

// RunSets recalls every query of every set with each system.
func RunSets(ctx context.Context, sets []*dataset.Dataset, o SetOptions) (*SetReport, error) {
	rep := &SetReport{}
	for _, ds := range sets {
		if err := runSet(ctx, ds, o, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		for _, c := range [][2]string{{a.Source, b.Source}, {a.Set, b.Set}, {a.Kind, b.Kind}, {a.Split, b.Split}} {
			if c[0] != c[1] {
				return c[0] < c[1]
			}
		}
		return slices.Index(SetSystems, a.System) < slices.Index(SetSystems, b.System)
	})
	return rep, nil
}

func runSet(ctx context.Context, ds *dataset.Dataset, o SetOptions, rep *SetReport) error {
	run, err := newEvalRun(ctx, ds, &dataset.Suite{Projects: []*dataset.Dataset{ds}}, false, Options{cfg: o.cfg})
	if err != nil {
		return err
	}
	bm := newPlainBM25(ds.Memories)
	rows := map[[3]string]*SetRow{}
	row := func(q dataset.Query, system string) *SetRow {
		k := [3]string{q.Kind, q.Split, system}
		if rows[k] == nil {
			rows[k] = &SetRow{Source: ds.Source, Set: ds.Name, Kind: q.Kind, Split: q.Split, System: system}
		}
		return rows[k]
	}
	noThreshold := 0.0
	for _, q := range ds.Queries {
		if len(o.Splits) > 0 && !slices.Contains(o.Splits, q.Split) {
			continue
		}
		now := run.st.QueryNow(q)
		for _, system := range SetSystems {
			var got []labelled
			switch system {
			case SystemBM25:
				for _, k := range bm.top(q.Query, SetK) {
					got = append(got, labelled{key: k})
				}
			default:
				opts := index.Options{Query: q.Query, Limit: SetK, Now: now, NoStale: true, Tuning: o.cfg}
				switch system {
				case SystemRanking:
					opts.MinConfidence = &noThreshold
				case SystemInjection:
					opts.Point = index.Injection
				}
				hits, err := run.scan.Rank(opts)
				if err != nil {
					return fmt.Errorf("query %s: %w", q.ID, err)
				}
				for _, h := range hits {
					got = append(got, labelled{key: run.st.KeyOf[h.Memory.ID], label: index.ConfidenceLabel(h.Confidence)})
				}
			}
			row(q, system).add(q, got)
		}
	}
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
	}
	return nil
}

// labelled is one returned memory of a set's query.
type labelled struct {
	key, label string
}

func (r *SetRow) add(q dataset.Query, got []labelled) {
	r.N++
	if len(got) == 0 {
		r.Nothing++
	}
	better := false
	found := 0
	for _, g := range got {
		rel := slices.Contains(q.Expect, g.key)
		r.Returned++
		if rel {
			r.RelevantHits++
			found++
		}
		if g.label == index.LabelLikely || g.label == index.LabelStrong {
			better = true
			r.Likely++
			if rel {
				r.LikelyRelevant++
			}
		}
	}
	if !better {
		r.NoLabel++
	}
	if len(q.Expect) > 0 {
		r.Recall += float64(found) / float64(len(q.Expect))
		if found > 0 {
			r.Hits++
		}
	}
}

// plainBM25 is the reference ranking: BM25 (k1 1.2, b 0.75) over lower-cased
// runs of letters and digits, nothing else.
type plainBM25 struct {
	keys  []string
	tf    []map[string]int
	dl    []int
	df    map[string]int
	avgdl float64
}

func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newPlainBM25(mems []dataset.Memory) *plainBM25 {
	b := &plainBM25{df: map[string]int{}}
	total := 0
	for _, m := range mems {
		words := plainWords(m.Text)
		tf := map[string]int{}
		for _, w := range words {
			tf[w]++
		}
		for w := range tf {
			b.df[w]++
		}
		b.keys = append(b.keys, m.Key)
		b.tf = append(b.tf, tf)
		b.dl = append(b.dl, len(words))
		total += len(words)
	}
	if len(mems) > 0 {
		b.avgdl = float64(total) / float64(len(mems))
	}
	return b
}

// refK1 and refB are the reference's BM25 parameters, the ranking's own.
const (
	refK1 = 1.2
	refB  = 0.75
)

// top returns the keys of the k best-scoring memories (ties in the order
// the memories were given), none that matches no word.
func (b *plainBM25) top(query string, k int) []string {
	n := float64(len(b.keys))
	words := map[string]bool{}
	for _, w := range plainWords(query) {
		words[w] = true
	}
	type scored struct {
		i int
		s float64
	}
	var all []scored
	for i, tf := range b.tf {
		s := 0.0
		for w := range words {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (refK1 + 1) / (f + refK1*(1-refB+refB*float64(b.dl[i])/b.avgdl))
		}
		if s > 0 {
			all = append(all, scored{i, s})
		}
	}
	sort.SliceStable(all, func(x, y int) bool { return all[x].s > all[y].s })
	var out []string
	for _, s := range all[:min(k, len(all))] {
		out = append(out, b.keys[s.i])
	}
	return out
}

// FormatSets renders a report: per source and set, a line per kind of
// query with each system's recall@k and hit@k (off-topic: the share that
// got nothing, and nothing labelled better than weak), explicit recall's
// share of the ranking's, and the injection point's precision; then the
// same per source over its sets.
func FormatSets(rep *SetReport) string {
	var b strings.Builder
	type group struct{ source, set string }
	var groups []group
	for _, r := range rep.Rows {
		g := group{r.Source, r.Set}
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if s := (group{r.Source, ""}); !slices.Contains(groups, s) {
			groups = append(groups, s)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].source != groups[j].source {
			return groups[i].source < groups[j].source
		}
		return groups[i].set != "" && groups[j].set == ""
	})
	for _, g := range groups {
		name := g.source + "/" + g.set
		if g.set == "" {
			name = "source " + g.source + " (all its sets)"
		}
		fmt.Fprintf(&b, "%s: recall@%d / hit@%d (off-topic: nothing / nothing better than weak)\n", name, SetK, SetK)
		fmt.Fprintf(&b, "  %-12s %5s %-13s %-13s %-13s %-6s %-17s %s\n", "kind", "n", "bm25", "ranking", "explicit", "kept", "injection prec.", "inj. hit")
		var kinds []string
		for _, r := range rep.Rows {
			if r.Source == g.source && (g.set == "" || r.Set == g.set) && !slices.Contains(kinds, r.Kind) {
				kinds = append(kinds, r.Kind)
			}
		}
		sort.Strings(kinds)
		if len(kinds) > 1 {
			kinds = append(kinds, "answerable")
		}
		for _, kind := range kinds {
			f := SetFilter{Source: g.source, Set: g.set, Kind: kind}
			sys := func(s string) SetRow { f.System = s; return rep.Sum(f) }
			bm, rk, ex, inj := sys(SystemBM25), sys(SystemRanking), sys(SystemExplicit), sys(SystemInjection)
			if kind == "offtopic" {
				share := func(r SetRow, n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(max(r.N, 1))) }
				fmt.Fprintf(&b, "  %-12s %5d %-13s %-13s %-13s %-6s %-17s\n", kind, ex.N, share(bm, bm.Nothing)+" / -", share(rk, rk.Nothing)+" / -",
					share(ex, ex.Nothing)+" / "+share(ex, ex.NoLabel), "", fmt.Sprintf("nothing %s", share(inj, inj.Nothing)))
				continue
			}
			rate := func(r SetRow) string {
				return fmt.Sprintf("%.3f / %.2f", r.RecallAt(), float64(r.Hits)/float64(max(r.N, 1)))
			}
			kept := "-"
			if rk.Recall > 0 {
				kept = fmt.Sprintf("%.3f", ex.Recall/rk.Recall)
			}
			fmt.Fprintf(&b, "  %-12s %5d %-13s %-13s %-13s %-6s %-17s %.2f\n", kind, ex.N, rate(bm), rate(rk), rate(ex), kept,
				fmt.Sprintf("%.2f (%d/%d)", inj.Precision(), inj.RelevantHits, inj.Returned), float64(inj.Hits)/float64(max(inj.N, 1)))
		}
		ex := rep.Sum(SetFilter{Source: g.source, Set: g.set, System: SystemExplicit})
		fmt.Fprintf(&b, "  labelled likely or strong: %d, relevant %.2f\n\n", ex.Likely, float64(ex.LikelyRelevant)/float64(max(ex.Likely, 1)))
	}
	return b.String()
}

// SetFloor is one committed floor of the shared sets' eval: the least
// value of a measure accepted for a source, set, kind and system ("" and
// "answerable" as in SetFilter). Measures: "recall" (recall@k), "no_label"
// (the share of queries that got nothing labelled better than weak) and
// "precision" (the share of returned memories that are relevant).
type SetFloor struct {
	Source  string  `json:"source"`
	Set     string  `json:"set,omitempty"`
	Kind    string  `json:"kind,omitempty"`
	System  string  `json:"system"`
	Measure string  `json:"measure"`
	Min     float64 `json:"min"`
}

// SetBaseline is the committed floors of the shared sets' eval.
type SetBaseline []SetFloor

// MinKept is the least share of the ranking's recall@k explicit recall
// must keep, on every answerable kind of every set: what the decision to
// answer may cost.
const MinKept = 0.97

// LoadSetBaseline reads a baseline of the shared sets.
func LoadSetBaseline(path string) (SetBaseline, error) { return loadJSON[SetBaseline](path) }

func (f SetFloor) measure(rep *SetReport) (float64, int) {
	r := rep.Sum(SetFilter{Source: f.Source, Set: f.Set, Kind: f.Kind, System: f.System})
	switch f.Measure {
	case "no_label":
		return float64(r.NoLabel) / float64(max(r.N, 1)), r.N
	case "precision":
		return r.Precision(), r.N
	}
	return r.RecallAt(), r.N
}

// Check lists what falls under the baseline, and every answerable kind of
// every set where explicit recall keeps less than MinKept of the ranking's
// recall@k.
func (b SetBaseline) Check(rep *SetReport) []string {
	var out []string
	for _, f := range b {
		got, n := f.measure(rep)
		if n == 0 {
			out = append(out, fmt.Sprintf("%s/%s %s %s: no query ran (the baseline names a set or kind the run lacks)", f.Source, f.Set, f.Kind, f.System))
			continue
		}
		if got+1e-9 < f.Min {
			out = append(out, fmt.Sprintf("%s/%s %s %s %s: %.3f is below the baseline %.3f", f.Source, f.Set, f.Kind, f.System, f.Measure, got, f.Min))
		}
	}
	seen := map[[3]string]bool{}
	for _, r := range rep.Rows {
		k := [3]string{r.Source, r.Set, r.Kind}
		if seen[k] || !dataset.Answerable(r.Kind) {
			continue
		}
		seen[k] = true
		f := SetFilter{Source: r.Source, Set: r.Set, Kind: r.Kind, System: SystemRanking}
		rank := rep.Sum(f)
		f.System = SystemExplicit
		if ex := rep.Sum(f); ex.Recall+1e-9 < MinKept*rank.Recall {
			out = append(out, fmt.Sprintf("%s/%s %s: explicit recall keeps %.3f of the ranking's, under %.2f", r.Source, r.Set, r.Kind, ex.Recall/rank.Recall, MinKept))
		}
	}
	return out
}
