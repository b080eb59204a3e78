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

func TestDebugEval(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
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
		if q.Split != "tune" || (os.Getenv("DBG") != "all" && q.Kind != os.Getenv("DBG")) {
			continue
		}
		terms := QueryTerms(q.Query)
		cands, _ := score(c, terms, nil)
		sort.Slice(cands, func(i, j int) bool { return cands[i].rel > cands[j].rel })
		exp := map[string]bool{}
		for _, e := range q.Expect {
			exp[e] = true
		}
		line := fmt.Sprintf("%s %q %v\n   ", q.Kind, q.Query, terms)
		for i, cd := range cands {
			k := keyOf[c.list[cd.doc].key]
			if i < 4 || exp[k] {
				mark := ""
				if exp[k] {
					mark = "*"
				}
				line += fmt.Sprintf(" %s%s=%.2f@%d", mark, k, cd.rel, i+1)
			}
		}
		t.Log(line)
	}
}

func TestDebugSweep(t *testing.T) {
	if os.Getenv("SWEEP") == "" {
		t.Skip()
	}
	ds, _ := LoadDataset(evalDir())
	for _, cp := range []float64{1.5} {
		for _, mg := range []float64{1} {
			for _, fl := range []float64{0.25, 0.28, 0.3, 0.33, 0.36, 0.4, 0.45} {
				rep, err := runEvalCfg(ds, &config{floor: fl, groupCap: cp, minGroups: 2, unknown: mg})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("cap %.1f unk %.2f floor %.2f: dev %.2f para %.2f off %.2f sup %.2f forb %d", cp, mg, fl,
					rep.Row("developer", "tune").Rate, rep.Row("paraphrase", "tune").Rate, rep.Row("offtopic", "tune").Rate, rep.Row("superseded", "tune").Rate, rep.Row("superseded", "tune").Forbidden)
			}
		}
	}
}
