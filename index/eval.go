package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
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

// Query kinds (shapes), in report order.
var EvalKinds = []string{"developer", "task", "error", "paraphrase", "keyword", "offtopic", "superseded"}

// EvalMemory is one line of memories.jsonl.
type EvalMemory struct {
	Key        string   `json:"key"`
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Tags       []string `json:"tags"`
	Paths      []string `json:"paths"`
	Source     string   `json:"source"`
	Supersedes string   `json:"supersedes"`
	// Keys are the memory's retrieval keys, as its writer would give them.
	Keys []string `json:"keys,omitempty"`
	// AgeDays is how long before the eval's now the memory was written.
	AgeDays int `json:"age_days"`
	// At, when set, is when the memory was written (a set of the shared
	// format dates its memories), instead of AgeDays.
	At time.Time `json:"-"`
}

// EvalQuery is one line of queries.jsonl.
type EvalQuery struct {
	Query  string   `json:"query"`
	Kind   string   `json:"kind"`
	Expect []string `json:"expect"`
	Forbid []string `json:"forbid"`
	Split  string   `json:"split"`
	// Near marks an off-topic query that shares a rare word with the store.
	Near bool `json:"near,omitempty"`
	// Also are other phrasings of the same need, as an agent sends them
	// through MCP (used when EvalOptions.Phrasings is set).
	Also []string `json:"also,omitempty"`
	// ID and At: a shared set's query id and date (when it is asked).
	ID string    `json:"-"`
	At time.Time `json:"-"`
}

// Dataset is one project of the eval.
type Dataset struct {
	Name string
	// Source names the process that wrote the dataset (LoadSets).
	Source   string
	Memories []EvalMemory
	Queries  []EvalQuery
}

// Suite is the whole eval: its projects and the unrelated memories.
type Suite struct {
	Projects    []*Dataset
	Distractors []EvalMemory
}

// distractorsDir is the suite directory holding only unrelated memories.
const distractorsDir = "distractors"

// LoadSuite reads every project directory of dir (one holding
// memories.jsonl and queries.jsonl) and the unrelated memories of
// dir/distractors.
func LoadSuite(dir string) (*Suite, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gitstore.ErrInvalid, err)
	}
	s := &Suite{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if e.Name() == distractorsDir {
			if s.Distractors, err = readMemories(sub); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(sub, "queries.jsonl")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ds, err := LoadDataset(sub)
		if err != nil {
			return nil, err
		}
		s.Projects = append(s.Projects, ds)
	}
	if len(s.Projects) == 0 {
		return nil, fmt.Errorf("%w: %s holds no project (a directory with memories.jsonl and queries.jsonl)", gitstore.ErrInvalid, dir)
	}
	return s, nil
}

// Project returns the named project, or nil.
func (s *Suite) Project(name string) *Dataset {
	for _, p := range s.Projects {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// LoadDataset reads memories.jsonl and queries.jsonl from dir.
func LoadDataset(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(dir)}
	var err error
	if ds.Memories, err = readMemories(dir); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q EvalQuery
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		if !slices.Contains(EvalKinds, q.Kind) {
			return fmt.Errorf("unknown kind %q; use one of %s", q.Kind, strings.Join(EvalKinds, ", "))
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, m := range ds.Memories {
		keys[m.Key] = true
	}
	for _, q := range ds.Queries {
		for _, k := range append(slices.Clone(q.Expect), q.Forbid...) {
			if !keys[k] {
				return nil, fmt.Errorf("%w: %s: query %q names unknown memory %s", gitstore.ErrInvalid, ds.Name, q.Query, k)
			}
		}
	}
	return ds, nil
}

func readMemories(dir string) ([]EvalMemory, error) {
	var out []EvalMemory
	err := readJSONL(filepath.Join(dir, "memories.jsonl"), func(b []byte) error {
		var m EvalMemory
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", gitstore.ErrInvalid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := []byte(strings.TrimSpace(sc.Text()))
		if len(b) == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%w: %s line %d: %v", gitstore.ErrInvalid, filepath.Base(path), line, err)
		}
	}
	return sc.Err()
}

// evalID is the deterministic memory id of a dataset key, so runs are repeatable.
func evalID(key string) string {
	sum := sha256.Sum256([]byte("git-mem eval " + key))
	return hex.EncodeToString(sum[:gitstore.IDHexLen/2])
}

// evalEpoch is the eval's now: a memory of age_days 0 is written then.
var evalEpoch = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// loadMemories writes memories into a store in one commit, each dated
// age_days before evalEpoch: replaced memories are closed when their
// replacement was written and linked to it.
func loadMemories(ctx context.Context, st *gitstore.Store, mems []EvalMemory) error {
	if len(mems) == 0 {
		return nil
	}
	_, err := st.Update(ctx, gitstore.Writer{Agent: "eval"}, func(tx *gitstore.Tx) error {
		docs := map[string]*gitstore.Memory{}
		for _, e := range mems {
			if _, dup := docs[e.Key]; dup {
				return fmt.Errorf("%w: memory key %s appears twice", gitstore.ErrInvalid, e.Key)
			}
			n := gitstore.NewMemory{Type: e.Type, Text: e.Text, Tags: e.Tags, Paths: e.Paths, Keys: e.Keys, Source: e.Source, AllowSecret: true}
			if err := n.Validate(); err != nil {
				return fmt.Errorf("memory %s: %w", e.Key, err)
			}
			at := evalEpoch.AddDate(0, 0, -e.AgeDays)
			if !e.At.IsZero() {
				at = e.At
			}
			docs[e.Key] = &gitstore.Memory{
				Schema: gitstore.SchemaVersion, ID: evalID(e.Key), Type: n.Type, Text: n.Text,
				Tags: n.Tags, Paths: n.Paths, Keys: n.Keys, Source: n.Source, Trust: gitstore.StartingTrust(n.Source, false),
				Agent: "eval", Author: "eval <eval@localhost>", Created: at, Updated: at, ValidFrom: at,
			}
		}
		for _, e := range mems {
			if e.Supersedes == "" {
				continue
			}
			old, ok := docs[e.Supersedes]
			if !ok {
				return fmt.Errorf("%w: memory %s supersedes unknown %s", gitstore.ErrInvalid, e.Key, e.Supersedes)
			}
			end := docs[e.Key].Created
			old.ValidTo = &end
			old.SupersededBy = evalID(e.Key)
			old.Events = append(old.Events, gitstore.Event{Op: gitstore.EventSupersede, At: end, Agent: "eval"})
			docs[e.Key].Supersedes = old.ID
		}
		for _, m := range docs {
			tx.Put(m)
		}
		tx.Describe("add", fmt.Sprintf("eval dataset: %d memories", len(docs)), evalID(mems[0].Key))
		return nil
	})
	return err
}

// Load writes the dataset's memories into a store in one commit.
func (ds *Dataset) Load(ctx context.Context, st *gitstore.Store) error {
	return loadMemories(ctx, st, ds.Memories)
}

// EvalRow is the result of one kind of query in one split, at one
// operating point, for one project with or without the unrelated memories.
type EvalRow struct {
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
func (r EvalRow) Rate() float64 {
	d := r.N
	if r.Point == Injection.String() {
		d = r.Wanted
	}
	if d == 0 {
		return 0
	}
	return float64(r.Hits) / float64(d)
}

// Precision is the share of injected memories that were expected.
func (r EvalRow) Precision() float64 {
	if r.Injected == 0 {
		return 1
	}
	return float64(r.Relevant) / float64(r.Injected)
}

// EvalMiss is one query that failed at the explicit point.
type EvalMiss struct {
	Project string    `json:"project"`
	Crowded bool      `json:"crowded"`
	Query   EvalQuery `json:"query"`
	Got     []string  `json:"got"`
	Reason  string    `json:"reason"`
}

// EvalReport is what RunEval measured.
type EvalReport struct {
	Rows   []EvalRow  `json:"rows"`
	Misses []EvalMiss `json:"misses"`
	Source string     `json:"source"`
}

// Filter selects rows; an empty field matches any value.
type Filter struct {
	Project, Point, Kind, Split string
	// Crowded: "", "yes" or "no".
	Crowded string
}

func (f Filter) match(r EvalRow) bool {
	crowded := map[string]bool{"yes": true, "no": false}
	return (f.Project == "" || f.Project == r.Project) &&
		(f.Point == "" || f.Point == r.Point) &&
		(f.Kind == "" || f.Kind == r.Kind) &&
		(f.Split == "" || f.Split == "all" || f.Split == r.Split) &&
		(f.Crowded == "" || crowded[f.Crowded] == r.Crowded)
}

// Sum adds up the rows a filter selects.
func (r *EvalReport) Sum(f Filter) EvalRow {
	out := EvalRow{Project: f.Project, Point: f.Point, Kind: f.Kind, Split: f.Split}
	if out.Point == "" {
		out.Point = Explicit.String()
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

// Ablation switches parts of recall off, comma-separated: "stem", "split",
// "thesaurus" (with the concept descriptions), "concepts", "phrase"
// (thesaurus phrases and question words such as "who"), "rerank" (trust,
// recency and boosts), "confidence" (every candidate is returned). The
// confidence's own features are ablated by refitting without them
// (TestFitConfidence).
type Ablation string

func (a Ablation) config() (*config, error) {
	if a == "" {
		return nil, nil
	}
	cfg := &config{}
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
			return nil, fmt.Errorf("%w: unknown ablation %q; use stem, split, thesaurus, concepts, phrase, rerank or confidence", gitstore.ErrInvalid, x)
		}
	}
	return cfg, nil
}

// EvalOptions configure RunEval.
type EvalOptions struct {
	// Dir, when set, holds scratch repositories so the recall snapshot is
	// used (the first project only, alone: it checks the snapshot and the
	// scan agree); otherwise the stores are in memory and scanned.
	Dir string
	// Ablation switches parts off (see Ablation).
	Ablation Ablation
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

	cfg *config
}

// RunEval loads each project into a fresh store, alone and then with the
// unrelated memories, and runs every query at both operating points.
func RunEval(ctx context.Context, s *Suite, o EvalOptions) (*EvalReport, error) {
	if o.cfg == nil {
		cfg, err := o.Ablation.config()
		if err != nil {
			return nil, err
		}
		o.cfg = cfg
	}
	rep := &EvalReport{}
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
			return slices.Index(EvalKinds, a.Kind) < slices.Index(EvalKinds, b.Kind)
		}
		return a.Split > b.Split
	})
	return rep, nil
}

// evalRun is one project loaded into one store.
type evalRun struct {
	ds      *Dataset
	crowded bool
	set     *gitstore.Set
	keyOf   map[string]string // memory id -> dataset key
	corpus  loader            // the scan, built once for every query
	// now is when an undated query is asked: an hour after the eval's
	// now, or a day after the newest dated memory
	now time.Time
}

func newEvalRun(ctx context.Context, ds *Dataset, s *Suite, crowded bool, o EvalOptions) (*evalRun, error) {
	var repo *gitstore.Repo
	snapshot := o.Dir != "" && !crowded && ds == s.Projects[0]
	if snapshot {
		r, err := scratchRepo(filepath.Join(o.Dir, ds.Name))
		if err != nil {
			return nil, err
		}
		repo = r
	} else {
		repo = gitstore.NewMemoryRepo()
	}
	repo.Now = func() time.Time { return evalEpoch }
	run := &evalRun{ds: ds, crowded: crowded, set: gitstore.NewSet(repo), keyOf: map[string]string{}, now: evalEpoch.Add(time.Hour)}
	var newest time.Time
	for _, m := range ds.Memories {
		if m.At.After(newest) {
			newest = m.At
		}
	}
	if !newest.IsZero() {
		run.now = newest.AddDate(0, 0, 1)
	}
	store, err := run.set.Writable(gitstore.ScopeProject)
	if err != nil {
		return nil, err
	}
	mems := ds.Memories
	if crowded {
		mems = append(slices.Clone(mems), s.Distractors...)
	}
	if o.Undated || o.NoKeys {
		mems = slices.Clone(mems)
		for i := range mems {
			if o.Undated {
				mems[i].AgeDays = 0
			}
			if o.NoKeys {
				mems[i].Keys = nil
			}
		}
	}
	if err := loadMemories(ctx, store, mems); err != nil {
		return nil, err
	}
	for _, m := range mems {
		run.keyOf[evalID(m.Key)] = m.Key
	}
	if !snapshot {
		entries, err := readEntries(ctx, run.set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
		if err != nil {
			return nil, err
		}
		run.corpus = newScanCorpus(entries, o.cfg.analyzer())
	}
	return run, nil
}

// recall answers one query (and its other phrasings) at a point, from the
// prebuilt scan or through Recall (the snapshot): the dataset keys of the
// memories returned, and which of them are labelled better than weak.
func (run *evalRun) recall(ctx context.Context, query string, also []string, p Point, cfg *config) (got []string, labelled int, source string, err error) {
	o := Options{Query: query, Also: also, Limit: 3, Now: run.now, NoStale: true, Point: p, cfg: cfg}
	var hits []Hit
	source = "scan"
	if run.corpus == nil {
		res, err := Recall(ctx, run.set, o)
		if err != nil {
			return nil, 0, "", err
		}
		hits, source = res.Hits, res.Source
	} else {
		var lists [][]Hit
		qs := phrasings(query, also)
		for _, q := range qs {
			one, err := rankHitsOnly(run.corpus, cfg.analyzer().queryTerms(q), onePhrasing(o, q))
			if err != nil {
				return nil, 0, "", err
			}
			lists = append(lists, one)
		}
		hits, _ = fuseHits(lists, o.Limit)
	}
	got = make([]string, len(hits))
	for i, h := range hits {
		got[i] = run.keyOf[h.Memory.ID]
		if ConfidenceLabel(h.Confidence) != LabelWeak {
			labelled++
		}
	}
	return got, labelled, source, nil
}

func (run *evalRun) queries(ctx context.Context, rep *EvalReport, o EvalOptions) error {
	rows := map[[3]string]*EvalRow{}
	row := func(p Point, q EvalQuery) *EvalRow {
		k := [3]string{p.String(), q.Kind, q.Split}
		if rows[k] == nil {
			rows[k] = &EvalRow{Project: run.ds.Name, Crowded: run.crowded, Point: p.String(), Kind: q.Kind, Split: q.Split}
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
		got, labelled, source, err := run.recall(ctx, q.Query, also, Explicit, o.cfg)
		if err != nil {
			return fmt.Errorf("query %q: %w", q.Query, err)
		}
		rep.Source = source
		r := row(Explicit, q)
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
			rep.Misses = append(rep.Misses, EvalMiss{Project: run.ds.Name, Crowded: run.crowded, Query: q, Got: got, Reason: reason})
		}

		if got, _, _, err = run.recall(ctx, q.Query, also, Injection, o.cfg); err != nil {
			return fmt.Errorf("query %q: %w", q.Query, err)
		}
		r = row(Injection, q)
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

func rankHitsOnly(c loader, terms []string, o Options) ([]Hit, error) {
	hits, _, _, err := rankHits(c, terms, &o)
	return hits, err
}

// judge tells whether an explicit recall answered a query: an expected
// memory among the first 3, or, for a query expecting nothing, nothing
// labelled better than weak (labelled counts those that were).
func judge(q EvalQuery, got []string, labelled int) (bool, string) {
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

func isForbidden(q EvalQuery, got []string) bool {
	for _, g := range got {
		if slices.Contains(q.Forbid, g) {
			return true
		}
	}
	return false
}

// scratchRepo makes an empty bare repository in dir (objects, refs, HEAD):
// enough for the store, without the git executable.
func scratchRepo(dir string) (*gitstore.Repo, error) {
	gd := filepath.Join(dir, "eval.git")
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(gd, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return nil, err
	}
	return gitstore.Open(gd)
}
