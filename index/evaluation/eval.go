package evaluation

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

// The eval (fixtures/eval, see its README): several imagined projects, each
// a labelled dataset, and a set of unrelated memories loaded with every
// project to measure interference. Each project's memories are loaded into
// a fresh store (once alone, once with the unrelated memories) and every
// query is recalled at both operating points.
//
// At the explicit point a query with expected memories is a hit when one of
// them is among the top 3; a query expecting nothing is a hit when nothing
// comes back labelled better than weak (Nothing counts those that got
// nothing at all); a forbidden (superseded) memory returned at all is a failure
// whatever else came back. At the injection point what counts is precision
// (the share of injected memories that are expected ones) and recall (the
// share of queries with expected memories that get one injected).

// Row is the result of one kind of query in one split, at one
// operating point, for one project with or without the unrelated memories.
type Row struct {
	Project string `json:"project"`
	// Crowded: loaded with the unrelated memories.
	Crowded bool   `json:"crowded"`
	Point   string `json:"point"`
	Kind    string `json:"kind"`
	Split   string `json:"split"`
	N       int    `json:"n"`
	// Hits: explicit point, queries answered right (see the eval comment);
	// injection point, queries with expected memories that got one.
	Hits int `json:"hits"`
	// Forbidden counts queries that returned a superseded (forbidden) memory.
	Forbidden int `json:"forbidden"`
	// Injected and Relevant count the memories returned at the injection
	// point, and of them the expected ones (precision = Relevant/Injected).
	Injected int `json:"injected"`
	Relevant int `json:"relevant"`
	// Wanted counts the queries with expected memories (injection recall = Hits/Wanted).
	Wanted int `json:"wanted"`
	// Nothing counts the queries that got nothing at all (explicit point).
	Nothing int `json:"nothing"`
}

// Rate is Hits/N (explicit) or Hits/Wanted (injection).
func (r Row) Rate() float64 {
	d := r.N
	if r.Point == index.Injection.String() {
		d = r.Wanted
	}
	if d == 0 {
		return 0
	}
	return float64(r.Hits) / float64(d)
}

// Precision is the share of injected memories that were expected.
func (r Row) Precision() float64 {
	if r.Injected == 0 {
		return 1
	}
	return float64(r.Relevant) / float64(r.Injected)
}

// Miss is one query that failed at the explicit point.
type Miss struct {
	Project string        `json:"project"`
	Crowded bool          `json:"crowded"`
	Query   dataset.Query `json:"query"`
	Got     []string      `json:"got"`
	Reason  string        `json:"reason"`
}

// Report is what Run measured.
type Report struct {
	Rows   []Row  `json:"rows"`
	Misses []Miss `json:"misses"`
	Source string `json:"source"`
}

// RowFilter selects rows; an empty field matches any value.
type RowFilter struct {
	Project, Point, Kind, Split string
	// Crowded: "", "yes" or "no".
	Crowded string
}

func (f RowFilter) match(r Row) bool {
	crowded := map[string]bool{"yes": true, "no": false}
	return (f.Project == "" || f.Project == r.Project) &&
		(f.Point == "" || f.Point == r.Point) &&
		(f.Kind == "" || f.Kind == r.Kind) &&
		(f.Split == "" || f.Split == "all" || f.Split == r.Split) &&
		(f.Crowded == "" || crowded[f.Crowded] == r.Crowded)
}

// Sum adds up the rows a filter selects.
func (r *Report) Sum(f RowFilter) Row {
	out := Row{Project: f.Project, Point: f.Point, Kind: f.Kind, Split: f.Split}
	if out.Point == "" {
		out.Point = index.Explicit.String()
	}
	for _, x := range r.Rows {
		if !f.match(x) {
			continue
		}
		out.N += x.N
		out.Hits += x.Hits
		out.Forbidden += x.Forbidden
		out.Injected += x.Injected
		out.Relevant += x.Relevant
		out.Wanted += x.Wanted
		out.Nothing += x.Nothing
	}
	return out
}

// Options configure Run.
type Options struct {
	// Dir, when set, holds scratch repositories so the recall snapshot is
	// used (the first project only, alone: it checks the snapshot and the
	// scan agree); otherwise the stores are in memory and scanned.
	Dir string
	// Ablation switches parts off (see Ablation).
	Ablation index.Ablation
	// Projects, when set, limits the run to these projects.
	Projects []string
	// Splits, when set, limits the run to these splits.
	Splits []string
	// NoCrowd skips the runs with the unrelated memories.
	NoCrowd bool
	// Phrasings recalls each query with its other phrasings (Also), fused.
	Phrasings bool
	// Undated writes every memory at the eval's now, ignoring age_days:
	// against the dated run it measures what recency and decay do.
	Undated bool
	// NoKeys writes the memories without their retrieval keys.
	NoKeys bool

	cfg *index.Tuning
}

// Run loads each project into a fresh store, alone and then with the
// unrelated memories, and runs every query at both operating points.
func Run(ctx context.Context, s *dataset.Suite, o Options) (*Report, error) {
	if o.cfg == nil {
		cfg, err := o.Ablation.Tuning()
		if err != nil {
			return nil, err
		}
		o.cfg = cfg
	}
	rep := &Report{}
	for _, ds := range s.Projects {
		if len(o.Projects) > 0 && !slices.Contains(o.Projects, ds.Name) {
			continue
		}
		for _, crowded := range []bool{false, true} {
			if crowded && (o.NoCrowd || len(s.Distractors) == 0) {
				continue
			}
			run, err := newEvalRun(ctx, ds, s, crowded, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ds.Name, err)
			}
			if err := run.queries(ctx, rep, o); err != nil {
				return nil, fmt.Errorf("%s: %w", ds.Name, err)
			}
		}
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		if a.Crowded != b.Crowded {
			return !a.Crowded
		}
		if a.Point != b.Point {
			return a.Point < b.Point
		}
		if a.Kind != b.Kind {
			return slices.Index(dataset.Kinds, a.Kind) < slices.Index(dataset.Kinds, b.Kind)
		}
		return a.Split > b.Split
	})
	return rep, nil
}

// evalRun is one project loaded into one store.
type evalRun struct {
	ds      *dataset.Dataset
	crowded bool
	st      *dataset.Stored
	scan    *index.Scan // the scan, built once for every query; nil: Recall (the snapshot)
}

func newEvalRun(ctx context.Context, ds *dataset.Dataset, s *dataset.Suite, crowded bool, o Options) (*evalRun, error) {
	wo := dataset.WriteOptions{Undated: o.Undated, NoKeys: o.NoKeys}
	snapshot := o.Dir != "" && !crowded && ds == s.Projects[0]
	if snapshot {
		r, err := dataset.ScratchRepo(filepath.Join(o.Dir, ds.Name))
		if err != nil {
			return nil, err
		}
		wo.Repo = r
	}
	if crowded {
		wo.Extra = s.Distractors
	}
	st, err := dataset.Write(ctx, ds, wo)
	if err != nil {
		return nil, err
	}
	run := &evalRun{ds: ds, crowded: crowded, st: st}
	if !snapshot {
		if run.scan, err = index.NewScan(ctx, st.Set, o.cfg); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// recall answers one query (and its other phrasings) at a point, from the
// prebuilt scan or through Recall (the snapshot): the dataset keys of the
// memories returned, and which of them are labelled better than weak.
func (run *evalRun) recall(ctx context.Context, query string, also []string, p index.Point, cfg *index.Tuning) (got []string, labelled int, source string, err error) {
	o := index.Options{Query: query, Also: also, Limit: 3, Now: run.st.Now, NoStale: true, Point: p, Tuning: cfg}
	var hits []index.Hit
	source = "scan"
	if run.scan == nil {
		res, err := index.Recall(ctx, run.st.Set, o)
		if err != nil {
			return nil, 0, "", err
		}
		hits, source = res.Hits, res.Source
	} else if hits, err = run.scan.Recall(o); err != nil {
		return nil, 0, "", err
	}
	got = make([]string, len(hits))
	for i, h := range hits {
		got[i] = run.st.KeyOf[h.Memory.ID]
		if index.ConfidenceLabel(h.Confidence) != index.LabelWeak {
			labelled++
		}
	}
	return got, labelled, source, nil
}

func (run *evalRun) queries(ctx context.Context, rep *Report, o Options) error {
	rows := map[[3]string]*Row{}
	row := func(p index.Point, q dataset.Query) *Row {
		k := [3]string{p.String(), q.Kind, q.Split}
		if rows[k] == nil {
			rows[k] = &Row{Project: run.ds.Name, Crowded: run.crowded, Point: p.String(), Kind: q.Kind, Split: q.Split}
		}
		return rows[k]
	}
	for _, q := range run.ds.Queries {
		if len(o.Splits) > 0 && !slices.Contains(o.Splits, q.Split) {
			continue
		}
		var also []string
		if o.Phrasings {
			also = q.Also
		}
		got, labelled, source, err := run.recall(ctx, q.Query, also, index.Explicit, o.cfg)
		if err != nil {
			return fmt.Errorf("query %q: %w", q.Query, err)
		}
		rep.Source = source
		r := row(index.Explicit, q)
		r.N++
		if len(got) == 0 {
			r.Nothing++
		}
		hit, reason := judge(q, got, labelled)
		if isForbidden(q, got) {
			r.Forbidden++
			hit, reason = false, "returned a superseded memory"
		}
		if hit {
			r.Hits++
		} else {
			rep.Misses = append(rep.Misses, Miss{Project: run.ds.Name, Crowded: run.crowded, Query: q, Got: got, Reason: reason})
		}

		if got, _, _, err = run.recall(ctx, q.Query, also, index.Injection, o.cfg); err != nil {
			return fmt.Errorf("query %q: %w", q.Query, err)
		}
		r = row(index.Injection, q)
		r.N++
		r.Injected += len(got)
		if isForbidden(q, got) {
			r.Forbidden++
		}
		any := false
		for _, g := range got {
			if slices.Contains(q.Expect, g) {
				r.Relevant++
				any = true
			}
		}
		if len(q.Expect) > 0 {
			r.Wanted++
			if any {
				r.Hits++
			}
		}
	}
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
	}
	return nil
}

// judge tells whether an explicit recall answered a query: an expected
// memory among the first 3, or, for a query expecting nothing, nothing
// labelled better than weak (labelled counts those that were).
func judge(q dataset.Query, got []string, labelled int) (bool, string) {
	if len(q.Expect) == 0 {
		if labelled == 0 {
			return true, ""
		}
		return false, "expected nothing better than weak"
	}
	for _, g := range got {
		if slices.Contains(q.Expect, g) {
			return true, ""
		}
	}
	return false, "expected " + strings.Join(q.Expect, ",") + " in the top 3"
}

func isForbidden(q dataset.Query, got []string) bool {
	for _, g := range got {
		if slices.Contains(q.Forbid, g) {
			return true
		}
	}
	return false
}
