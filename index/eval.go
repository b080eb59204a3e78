package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// The eval: a labelled dataset (fixtures/eval, see its README) is loaded into
// a fresh store and every query is recalled. A developer, paraphrase or
// superseded query with expected memories is a hit when one of them is in
// the top 3; a query expecting nothing is a hit when nothing comes back; a
// forbidden (superseded) memory returned at all is a failure whatever else
// came back.

// EvalMemory is one line of memories.jsonl.
type EvalMemory struct {
	Key        string   `json:"key"`
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Tags       []string `json:"tags"`
	Paths      []string `json:"paths"`
	Source     string   `json:"source"`
	Supersedes string   `json:"supersedes"`
}

// EvalQuery is one line of queries.jsonl.
type EvalQuery struct {
	Query  string   `json:"query"`
	Kind   string   `json:"kind"`
	Expect []string `json:"expect"`
	Forbid []string `json:"forbid"`
	Split  string   `json:"split"`
}

// Dataset is a loaded eval directory.
type Dataset struct {
	Memories []EvalMemory
	Queries  []EvalQuery
}

// LoadDataset reads memories.jsonl and queries.jsonl from dir.
func LoadDataset(dir string) (*Dataset, error) {
	ds := &Dataset{}
	if err := readJSONL(filepath.Join(dir, "memories.jsonl"), func(b []byte) error {
		var m EvalMemory
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		ds.Memories = append(ds.Memories, m)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q EvalQuery
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	return ds, nil
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

// evalEpoch is when the dataset's memories are written.
var evalEpoch = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// Load writes the dataset's memories into a store in one commit: replaced
// memories are closed and linked to their replacement.
func (ds *Dataset) Load(ctx context.Context, st *gitstore.Store) error {
	byKey := map[string]EvalMemory{}
	for _, m := range ds.Memories {
		byKey[m.Key] = m
	}
	_, err := st.Update(ctx, gitstore.Writer{Agent: "eval"}, func(tx *gitstore.Tx) error {
		now := evalEpoch
		docs := map[string]*gitstore.Memory{}
		for _, e := range ds.Memories {
			n := gitstore.NewMemory{Type: e.Type, Text: e.Text, Tags: e.Tags, Paths: e.Paths, Source: e.Source, AllowSecret: true}
			if err := n.Validate(); err != nil {
				return fmt.Errorf("memory %s: %w", e.Key, err)
			}
			docs[e.Key] = &gitstore.Memory{
				Schema: gitstore.SchemaVersion, ID: evalID(e.Key), Type: n.Type, Text: n.Text,
				Tags: n.Tags, Paths: n.Paths, Source: n.Source, Trust: gitstore.StartingTrust(n.Source, false),
				Agent: "eval", Author: "eval <eval@localhost>", Created: now, Updated: now, ValidFrom: now,
			}
		}
		for _, e := range ds.Memories {
			if e.Supersedes == "" {
				continue
			}
			old, ok := docs[e.Supersedes]
			if !ok {
				return fmt.Errorf("%w: memory %s supersedes unknown %s", gitstore.ErrInvalid, e.Key, e.Supersedes)
			}
			end := now
			old.ValidTo = &end
			old.SupersededBy = evalID(e.Key)
			old.Events = append(old.Events, gitstore.Event{Op: gitstore.EventSupersede, At: now, Agent: "eval"})
			docs[e.Key].Supersedes = old.ID
		}
		for _, m := range docs {
			tx.Put(m)
		}
		tx.Describe("add", fmt.Sprintf("eval dataset: %d memories", len(docs)), evalID(ds.Memories[0].Key))
		return nil
	})
	return err
}

// EvalRow is the result of one kind of query in one split.
type EvalRow struct {
	Kind  string  `json:"kind"`
	Split string  `json:"split"`
	N     int     `json:"n"`
	Hits  int     `json:"hits"`
	Rate  float64 `json:"rate"`
	// Forbidden counts queries that returned a superseded (forbidden) memory.
	Forbidden int `json:"forbidden"`
}

// EvalMiss is one query that failed.
type EvalMiss struct {
	Query  EvalQuery `json:"query"`
	Got    []string  `json:"got"`
	Reason string    `json:"reason"`
}

// EvalReport is what RunEval measured.
type EvalReport struct {
	Rows   []EvalRow  `json:"rows"`
	Misses []EvalMiss `json:"misses"`
	Source string     `json:"source"`
}

// Row returns the row of a kind and split ("all" sums every split).
func (r *EvalReport) Row(kind, split string) EvalRow {
	out := EvalRow{Kind: kind, Split: split}
	for _, x := range r.Rows {
		if x.Kind == kind && (split == "all" || x.Split == split) {
			out.N += x.N
			out.Hits += x.Hits
			out.Forbidden += x.Forbidden
		}
	}
	if out.N > 0 {
		out.Rate = float64(out.Hits) / float64(out.N)
	}
	return out
}

// EvalOptions configure RunEval.
type EvalOptions struct {
	// Dir, when set, holds a scratch repository so the bleve index is used;
	// otherwise the store is in memory and scanned.
	Dir string
	// Ablation switches parts off: "stem", "split", "thesaurus" (with the
	// concept descriptions), "concepts", "phrase"
	// (thesaurus phrases and question words such as "who"), "rerank"
	// (trust, recency and boosts), "floor" (relevance floor, the
	// two-matched-terms rule and the specific-words rule); comma-separated; it implies scanning.
	Ablation string
	// Floor overrides DefaultFloor (0 keeps it).
	Floor float64
}

// RunEval loads the dataset into a fresh store and runs every query.
func RunEval(ctx context.Context, ds *Dataset, o EvalOptions) (*EvalReport, error) {
	var repo *gitstore.Repo
	if o.Dir != "" {
		r, err := scratchRepo(o.Dir)
		if err != nil {
			return nil, err
		}
		repo = r
	} else {
		repo = gitstore.NewMemoryRepo()
	}
	repo.Now = func() time.Time { return evalEpoch }
	set := gitstore.NewSet(repo)
	store, err := set.Writable(gitstore.ScopeProject)
	if err != nil {
		return nil, err
	}
	if err := ds.Load(ctx, store); err != nil {
		return nil, err
	}
	var cfg *config
	if o.Ablation != "" || o.Floor != 0 {
		cfg = &config{floor: o.Floor}
		for _, a := range strings.Split(o.Ablation, ",") {
			switch strings.TrimSpace(a) {
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
			case "floor":
				cfg.floor, cfg.minGroups, cfg.specific = 1e-9, 1, -1
			case "":
			default:
				return nil, fmt.Errorf("%w: unknown ablation %q; use stem, split, thesaurus, concepts, phrase, rerank or floor", gitstore.ErrInvalid, a)
			}
		}
	}
	return evalQueries(ctx, ds, set, cfg)
}

func evalQueries(ctx context.Context, ds *Dataset, set *gitstore.Set, cfg *config) (*EvalReport, error) {
	keyOf := map[string]string{}
	for _, m := range ds.Memories {
		keyOf[evalID(m.Key)] = m.Key
	}
	rows := map[[2]string]*EvalRow{}
	rep := &EvalReport{}
	now := evalEpoch.Add(time.Hour)
	for _, q := range ds.Queries {
		res, err := Recall(ctx, set, Options{Query: q.Query, Limit: 3, Now: now, NoStale: true, cfg: cfg})
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Query, err)
		}
		rep.Source = res.Source
		var got []string
		for _, h := range res.Hits {
			got = append(got, keyOf[h.Memory.ID])
		}
		k := [2]string{q.Kind, q.Split}
		row := rows[k]
		if row == nil {
			row = &EvalRow{Kind: q.Kind, Split: q.Split}
			rows[k] = row
		}
		row.N++
		hit, reason := judge(q, got)
		if forbidden(q, got) {
			row.Forbidden++
			hit, reason = false, "returned a superseded memory"
		}
		if hit {
			row.Hits++
		} else {
			rep.Misses = append(rep.Misses, EvalMiss{Query: q, Got: got, Reason: reason})
		}
	}
	for _, r := range rows {
		if r.N > 0 {
			r.Rate = float64(r.Hits) / float64(r.N)
		}
		rep.Rows = append(rep.Rows, *r)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		if rep.Rows[i].Kind != rep.Rows[j].Kind {
			return kindOrder(rep.Rows[i].Kind) < kindOrder(rep.Rows[j].Kind)
		}
		return rep.Rows[i].Split > rep.Rows[j].Split
	})
	return rep, nil
}

func kindOrder(k string) int {
	switch k {
	case "developer":
		return 0
	case "paraphrase":
		return 1
	case "offtopic":
		return 2
	case "superseded":
		return 3
	}
	return 4
}

func judge(q EvalQuery, got []string) (bool, string) {
	if len(q.Expect) == 0 {
		if len(got) == 0 {
			return true, ""
		}
		return false, "expected nothing"
	}
	for _, g := range got {
		for _, e := range q.Expect {
			if g == e {
				return true, ""
			}
		}
	}
	return false, "expected " + strings.Join(q.Expect, ",") + " in the top 3"
}

func forbidden(q EvalQuery, got []string) bool {
	for _, g := range got {
		for _, f := range q.Forbid {
			if g == f {
				return true
			}
		}
	}
	return false
}

// runEvalCfg runs the eval in memory with a given configuration (tuning).
func runEvalCfg(ds *Dataset, cfg *config) (*EvalReport, error) {
	repo := gitstore.NewMemoryRepo()
	repo.Now = func() time.Time { return evalEpoch }
	set := gitstore.NewSet(repo)
	store, err := set.Writable(gitstore.ScopeProject)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := ds.Load(ctx, store); err != nil {
		return nil, err
	}
	return evalQueries(ctx, ds, set, cfg)
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

// FormatEval renders a report as a table: recall@3 (or rejection) per kind
// and split, a column per split present (tune, holdout, then any other, such
// as fresh) and one for all.
func FormatEval(rep *EvalReport) string {
	splits := []string{"tune", "holdout"}
	for _, r := range rep.Rows {
		if !slices.Contains(splits, r.Split) {
			splits = append(splits, r.Split)
		}
	}
	sort.SliceStable(splits[2:], func(i, j int) bool { return splits[2+i] < splits[2+j] })
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s", "kind")
	for _, s := range append(splits, "all") {
		fmt.Fprintf(&b, " %-14s", s)
	}
	fmt.Fprintf(&b, " %s\n", "measure")
	for _, kind := range []string{"developer", "paraphrase", "offtopic", "superseded"} {
		all := rep.Row(kind, "all")
		if all.N == 0 {
			continue
		}
		measure := "recall@3"
		switch kind {
		case "offtopic":
			measure = "rejected (nothing returned)"
		case "superseded":
			measure = fmt.Sprintf("answered without the old fact; superseded returned: %d", all.Forbidden)
		}
		fmt.Fprintf(&b, "%-11s", kind)
		for _, s := range append(splits, "all") {
			r := rep.Row(kind, s)
			cell := "-"
			if r.N > 0 {
				cell = fmt.Sprintf("%.2f (%d/%d)", r.Rate, r.Hits, r.N)
			}
			fmt.Fprintf(&b, " %-14s", cell)
		}
		fmt.Fprintf(&b, " %s\n", measure)
	}
	return b.String()
}

// Baseline is the committed floor of the eval (fixtures/eval/baseline.json):
// the lowest rate accepted per kind and split ("tune", "holdout" or "all").
type Baseline map[string]map[string]float64

// LoadBaseline reads a baseline file.
func LoadBaseline(path string) (Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", gitstore.ErrInvalid, path, err)
	}
	return b, nil
}

// Check lists the results under the baseline, and any superseded memory
// returned as current.
func (b Baseline) Check(rep *EvalReport) []string {
	var out []string
	kinds := make([]string, 0, len(b))
	for k := range b {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		splits := make([]string, 0, len(b[kind]))
		for s := range b[kind] {
			splits = append(splits, s)
		}
		sort.Strings(splits)
		for _, split := range splits {
			if got := rep.Row(kind, split); got.Rate+1e-9 < b[kind][split] {
				out = append(out, fmt.Sprintf("%s/%s: %.2f is below the baseline %.2f", kind, split, got.Rate, b[kind][split]))
			}
		}
	}
	for _, kind := range []string{"developer", "paraphrase", "offtopic", "superseded"} {
		if n := rep.Row(kind, "all").Forbidden; n > 0 {
			out = append(out, fmt.Sprintf("%s: %d queries returned a superseded memory as current", kind, n))
		}
	}
	return out
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
	{"no relevance floor", "floor"},
	{"none of stem, split, thesaurus, rerank", "stem,split,thesaurus,rerank"},
}

// FormatAblation renders one line per ablation: recall@3 per kind (all splits).
func FormatAblation(names []string, reps []*EvalReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-38s %-10s %-10s %-10s %-10s\n", "variant", "developer", "paraphrase", "offtopic", "superseded")
	for i, rep := range reps {
		fmt.Fprintf(&b, "%-38s %-10.2f %-10.2f %-10.2f %-10.2f\n", names[i],
			rep.Row("developer", "all").Rate, rep.Row("paraphrase", "all").Rate,
			rep.Row("offtopic", "all").Rate, rep.Row("superseded", "all").Rate)
	}
	return b.String()
}
