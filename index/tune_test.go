//go:build tune

package index

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Tuning helpers, built only with -tags tune and run only when asked for. They look at the tune split only:
// the holdout split stays unseen while ranking parameters are chosen.
//
//	GIT_MEM_TUNE=paraphrase go test -tags tune ./index/ -run TestTuneQueries -v   (or developer, offtopic, superseded, all)
//	GIT_MEM_TUNE_SWEEP=1 go test -tags tune ./index/ -run TestTuneSweep -v

// TestTuneQueries prints, for each tune query of a kind, its terms, the top
// candidates' relevance and where the expected memories rank (marked *).
func TestTuneQueries(t *testing.T) {
	kind := os.Getenv("GIT_MEM_TUNE")
	if kind == "" {
		t.Skip("set GIT_MEM_TUNE to a query kind or all")
	}
	ds, _ := LoadDataset(evalDir())
	repo := gitstore.NewMemoryRepo()
	repo.Now = func() time.Time { return evalEpoch }
	set := gitstore.NewSet(repo)
	st, _ := set.Writable(gitstore.ScopeProject)
	ctx := context.Background()
	if err := ds.Load(ctx, st); err != nil {
		t.Fatal(err)
	}
	keyOf := map[string]string{}
	for _, m := range ds.Memories {
		keyOf[docKey("project", evalID(m.Key))] = m.Key
	}
	entries, _ := readEntries(ctx, set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	c := newScanCorpus(entries, analyzer{})
	for _, q := range ds.Queries {
		if q.Split != "tune" || (kind != "all" && q.Kind != kind) {
			continue
		}
		terms := QueryTerms(q.Query)
		cands, _ := score(c, terms, &config{floor: 1e-9}) // no pruning: show everything
		sort.Slice(cands, func(i, j int) bool { return cands[i].rel > cands[j].rel })
		exp := map[string]bool{}
		for _, e := range q.Expect {
			exp[e] = true
		}
		line := fmt.Sprintf("%s %q %v\n   ", q.Kind, q.Query, terms)
		for i, cd := range cands {
			k := keyOf[c.list[cd.doc].key]
			if i < 2 || exp[k] {
				mark := ""
				if exp[k] {
					mark = "*"
				}
				dt := map[string]bool{}
				for _, x := range docTerms(c.list[cd.doc].m, analyzer{}) {
					dt[x] = true
				}
				var hit []string
				for _, g := range expand(terms, nil) {
					for _, m := range g {
						if dt[m.term] {
							hit = append(hit, g[0].term+"~"+m.term)
							break
						}
					}
				}
				line += fmt.Sprintf(" %s%s=%.2f@%d%v", mark, k, cd.rel, i+1, hit)
			}
		}
		t.Log(line)
	}
}

// TestTuneSweep prints the tune-split rates over a grid of floors.
func TestTuneSweep(t *testing.T) {
	if os.Getenv("GIT_MEM_TUNE_SWEEP") == "" {
		t.Skip("set GIT_MEM_TUNE_SWEEP=1")
	}
	ds, err := LoadDataset(evalDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, lq := range []int{8} {
		for _, unk := range []float64{0.5, 0.7} {
			for _, syn := range []float64{0.6, 0.8} {
				for _, floor := range []float64{0.31, 0.34, 0.37, 0.40, 0.43, 0.46} {
					rep, err := runEvalCfg(ds, &config{floor: floor, synWeight: syn, longQuery: lq, concept: unk})
					if err != nil {
						t.Fatal(err)
					}
					dev, para, off, sup := rep.Row("developer", "tune"), rep.Row("paraphrase", "tune"), rep.Row("offtopic", "tune"), rep.Row("superseded", "tune")
					t.Logf("long %d concept %.1f synonyms %.2f floor %.2f: developer %.2f paraphrase %.2f offtopic %.2f superseded %.2f (forbidden %d) sum %.2f",
						lq, unk, syn, floor, dev.Rate, para.Rate, off.Rate, sup.Rate, sup.Forbidden, para.Rate+off.Rate)
				}
			}
		}
	}
}

// TestTuneGrid prints the tune-split rates over group caps, unknown-word
// weights, synonym weights and floors.
func TestTuneGrid(t *testing.T) {
	if os.Getenv("GIT_MEM_TUNE_GRID") == "" {
		t.Skip("set GIT_MEM_TUNE_GRID=1")
	}
	ds, err := LoadDataset(evalDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, capv := range []float64{1.0, 1.5} {
		for _, unk := range []float64{-1, 0.34, 0.5, 0.67} { // specific share
			for _, syn := range []float64{0.6, 0.8} {
				for _, floor := range []float64{0.16, 0.19, 0.22, 0.25, 0.28, 0.31} {
					rep, err := runEvalCfg(ds, &config{floor: floor, groupCap: capv, specific: unk, synWeight: syn})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("cap %.1f spec %.2f syn %.1f floor %.2f: dev %.2f para %.2f off %.2f sup %.2f (forbidden %d)",
						capv, unk, syn, floor, rep.Row("developer", "tune").Rate, rep.Row("paraphrase", "tune").Rate,
						rep.Row("offtopic", "tune").Rate, rep.Row("superseded", "tune").Rate, rep.Row("superseded", "tune").Forbidden)
				}
			}
		}
	}
}
