package evaluation

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
	"github.com/git-mem/git-mem/memerr"
)

// splitsOf lists the splits present, tune first, then the others by name.
func (r *Report) splitsOf(project string) []string {
	var out []string
	for _, x := range r.Rows {
		if (project == "" || x.Project == project) && !slices.Contains(out, x.Split) {
			out = append(out, x.Split)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == "tune") != (out[j] == "tune") {
			return out[i] == "tune"
		}
		return out[i] < out[j]
	})
	return out
}

func (r *Report) projects() []string {
	var out []string
	for _, x := range r.Rows {
		if !slices.Contains(out, x.Project) {
			out = append(out, x.Project)
		}
	}
	return out
}

func cell(x Row) string {
	if x.N == 0 {
		return "-"
	}
	d := x.N
	if x.Point == index.Injection.String() {
		d = x.Wanted
	}
	return fmt.Sprintf("%.2f (%d/%d)", x.Rate(), x.Hits, d)
}

func precisionCell(x Row) string {
	if x.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", x.Precision(), x.Relevant, x.Injected)
}

// Format renders a report: per project, a line per kind of query with
// the explicit point's rate per split (recall@3; off-topic: nothing
// labelled better than weak, and the share that got nothing at all) alone
// and with the unrelated memories ("crowded"), then the injection point's
// precision and recall; and a summary over every project.
func Format(rep *Report) string {
	var b strings.Builder
	for _, p := range append(rep.projects(), "") {
		splits := rep.splitsOf(p)
		name := p
		if p == "" {
			if len(rep.projects()) < 2 {
				break
			}
			name = "all projects"
		}
		fmt.Fprintf(&b, "%s: explicit point, recall@3 (off-topic: share with nothing labelled better than weak)\n%-11s", name, "kind")
		cols := slices.Clone(splits)
		if len(splits) > 1 {
			cols = append(cols, "all")
		}
		for _, s := range splits {
			cols = append(cols, "crowded "+s)
		}
		for _, s := range cols {
			fmt.Fprintf(&b, " %-15s", s)
		}
		b.WriteString("\n")
		for _, kind := range dataset.Kinds {
			if rep.Sum(RowFilter{Project: p, Kind: kind, Point: "explicit"}).N == 0 {
				continue
			}
			fmt.Fprintf(&b, "%-11s", kind)
			for _, s := range cols {
				f := RowFilter{Project: p, Kind: kind, Point: "explicit", Split: s, Crowded: "no"}
				if split, ok := strings.CutPrefix(s, "crowded "); ok {
					f.Split, f.Crowded = split, "yes"
				}
				fmt.Fprintf(&b, " %-15s", cell(rep.Sum(f)))
			}
			b.WriteString("\n")
		}
		if off := rep.Sum(RowFilter{Project: p, Kind: "offtopic", Point: "explicit", Crowded: "no"}); off.N > 0 {
			fmt.Fprintf(&b, "%-11s %.2f (%d/%d) of off-topic queries got nothing at all\n", "", float64(off.Nothing)/float64(off.N), off.Nothing, off.N)
		}
		for _, crowd := range []string{"no", "yes"} {
			inj := rep.Sum(RowFilter{Project: p, Point: "injection", Crowded: crowd})
			if inj.N == 0 {
				continue
			}
			label := "injection"
			if crowd == "yes" {
				label = "  crowded"
			}
			fmt.Fprintf(&b, "%-11s precision %s, recall %s", label, precisionCell(inj), cell(inj))
			for _, s := range splits {
				x := rep.Sum(RowFilter{Project: p, Point: "injection", Split: s, Crowded: crowd})
				fmt.Fprintf(&b, "; %s %s/%s", s, precisionCell(x), cell(x))
			}
			b.WriteString("\n")
		}
		sup := rep.Sum(RowFilter{Project: p, Point: "explicit"}).Forbidden + rep.Sum(RowFilter{Project: p, Point: "injection"}).Forbidden
		fmt.Fprintf(&b, "superseded memories returned as current: %d\n\n", sup)
	}
	return b.String()
}

// BaselineEntry is one committed floor of the eval: the least rate (or,
// for "precision", injection precision) accepted for a project, point,
// kind, split and crowding ("all" and "" match any).
type BaselineEntry struct {
	Project string  `json:"project"`
	Crowded string  `json:"crowded"`
	Point   string  `json:"point"`
	Kind    string  `json:"kind"`
	Split   string  `json:"split"`
	Measure string  `json:"measure"`
	Min     float64 `json:"min"`
}

// Baseline is fixtures/eval/baseline.json.
type Baseline []BaselineEntry

// LoadBaseline reads a baseline file.
func LoadBaseline(path string) (Baseline, error) { return loadJSON[Baseline](path) }

// loadJSON reads a JSON file of the eval (a baseline); a file that is not
// valid JSON is an invalid input.
func loadJSON[T any](path string) (T, error) {
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("%w: %s: %v", memerr.ErrInvalid, path, err)
	}
	return v, nil
}

func (e BaselineEntry) measure(rep *Report) float64 {
	x := rep.Sum(RowFilter{Project: e.Project, Point: e.Point, Kind: e.Kind, Split: e.Split, Crowded: e.Crowded})
	if e.Measure == "precision" {
		return x.Precision()
	}
	return x.Rate()
}

// Check lists the results under the baseline, and any superseded memory
// returned as current.
func (b Baseline) Check(rep *Report) []string {
	var out []string
	for _, e := range b {
		if got := e.measure(rep); got+1e-9 < e.Min {
			out = append(out, fmt.Sprintf("%s %s %s/%s (crowded %q) %s: %.2f is below the baseline %.2f",
				e.Project, e.Point, e.Kind, e.Split, e.Crowded, e.Measure, got, e.Min))
		}
	}
	for _, p := range rep.projects() {
		if n := rep.Sum(RowFilter{Project: p, Point: "explicit"}).Forbidden; n > 0 {
			out = append(out, fmt.Sprintf("%s: %d queries returned a superseded memory as current", p, n))
		}
	}
	return out
}

// Only keeps the entries of these splits: what a run of only those splits
// can be checked against.
func (b Baseline) Only(splits []string) Baseline {
	var out Baseline
	for _, e := range b {
		if slices.Contains(splits, e.Split) {
			out = append(out, e)
		}
	}
	return out
}

// Update replaces the entries of the splits a report ran (splits; every
// split when empty) by the report's figures, and keeps the entries of the
// other splits as they are: a run of the tune split never rewrites the
// floors of the splits it did not measure.
func (b Baseline) Update(rep *Report, splits []string) Baseline {
	if len(splits) == 0 {
		return NewBaseline(rep)
	}
	var out Baseline
	for _, e := range b {
		if !slices.Contains(splits, e.Split) {
			out = append(out, e)
		}
	}
	for _, e := range NewBaseline(rep) {
		if slices.Contains(splits, e.Split) {
			out = append(out, e)
		}
	}
	// the order NewBaseline writes: project, point, kind, split (tune
	// first), crowding
	sort.SliceStable(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.Project != c.Project {
			return a.Project < c.Project
		}
		if a.Point != c.Point {
			return a.Point == "explicit"
		}
		if a.Kind != c.Kind {
			return slices.Index(dataset.Kinds, a.Kind) < slices.Index(dataset.Kinds, c.Kind)
		}
		if a.Split != c.Split {
			return a.Split == "tune" || c.Split != "tune" && a.Split < c.Split
		}
		return a.Crowded < c.Crowded
	})
	return out
}

// NewBaseline records a report's figures, rounded down to two decimals:
// per project, kind and split at the explicit point (alone and crowded),
// and the injection precision per project and split.
func NewBaseline(rep *Report) Baseline {
	down := func(x float64) float64 { return math.Floor(x*100+1e-9) / 100 }
	var b Baseline
	for _, p := range rep.projects() {
		for _, kind := range dataset.Kinds {
			for _, s := range rep.splitsOf(p) {
				for _, crowd := range []string{"no", "yes"} {
					x := rep.Sum(RowFilter{Project: p, Point: "explicit", Kind: kind, Split: s, Crowded: crowd})
					if x.N > 0 {
						b = append(b, BaselineEntry{Project: p, Crowded: crowd, Point: "explicit", Kind: kind, Split: s, Measure: "rate", Min: down(x.Rate())})
					}
				}
			}
		}
		for _, s := range rep.splitsOf(p) {
			for _, crowd := range []string{"no", "yes"} {
				x := rep.Sum(RowFilter{Project: p, Point: "injection", Split: s, Crowded: crowd})
				if x.N > 0 {
					b = append(b, BaselineEntry{Project: p, Crowded: crowd, Point: "injection", Split: s, Measure: "precision", Min: down(x.Precision())})
				}
			}
		}
	}
	return b
}

// Ablations are the eval variants with one part switched off.
var Ablations = []struct{ Name, Off string }{
	{"full", ""},
	{"no stemming", "stem"},
	{"no identifier/path splitting", "split"},
	{"no thesaurus (nor concepts)", "thesaurus"},
	{"no concept descriptions", "concepts"},
	{"no phrases or question words", "phrase"},
	{"no trust/recency re-ranking", "rerank"},
	{"no confidence (every candidate)", "confidence"},
}

// FormatAblation renders one line per ablation: the explicit point's rate
// per kind (every project and split, alone) and the injection precision.
func FormatAblation(names []string, reps []*Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s", "variant")
	for _, k := range dataset.Kinds {
		fmt.Fprintf(&b, " %-10s", k)
	}
	fmt.Fprintf(&b, " %s\n", "inj.prec")
	for i, rep := range reps {
		fmt.Fprintf(&b, "%-36s", names[i])
		for _, k := range dataset.Kinds {
			fmt.Fprintf(&b, " %-10.2f", rep.Sum(RowFilter{Point: "explicit", Kind: k, Crowded: "no"}).Rate())
		}
		fmt.Fprintf(&b, " %.2f\n", rep.Sum(RowFilter{Point: "injection", Crowded: "no"}).Precision())
	}
	return b.String()
}
