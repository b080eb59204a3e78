package evaluation

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

var updateSetBaseline = flag.Bool("update-set-baseline", false, "rewrite fixtures/eval/sets-baseline.json from this run")

func exampleSetsDir() string { return filepath.Join("..", "..", "fixtures", "evalsets") }

// setsDir is where the shared recall sets are: shared/eval beside the
// project, or GIT_MEM_SETS.
func setsDir() string {
	if d := os.Getenv("GIT_MEM_SETS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "eval")
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

// TestRunSetsMeasures: each system is measured on the same queries; the
// ranking finds the notes, explicit recall keeps all of it, labels the
// off-topic questions' matches weak, and plain BM25 is the reference.
func TestRunSetsMeasures(t *testing.T) {
	sets, err := dataset.LoadSets(exampleSetsDir())
	require.NoError(t, err)
	rep, err := RunSets(context.Background(), sets, SetOptions{})
	require.NoError(t, err)
	sum := func(kind, system string) SetRow {
		return rep.Sum(SetFilter{Source: "tidepool", Kind: kind, System: system})
	}
	for _, sys := range SetSystems {
		require.Equal(t, 4, sum("answerable", sys).N, sys)
		require.Equal(t, 2, sum("offtopic", sys).N, sys)
	}
	rank, ex := sum("answerable", SystemRanking), sum("answerable", SystemExplicit)
	require.Equal(t, 4, rank.Hits, "the ranking finds a relevant note for every question")
	require.InDelta(t, rank.Recall, ex.Recall, 1e-9, "explicit recall keeps what the ranking finds")
	require.Empty(t, NewSetBaseline(rep).Check(rep), "a report is never under its own figures")
	require.Equal(t, 2, sum("offtopic", SystemExplicit).NoLabel, "nothing better than weak for an off-topic question")
	require.Equal(t, 2, sum("offtopic", SystemInjection).Nothing, "the hook injects nothing for them")
	require.Positive(t, sum("answerable", SystemBM25).Hits)
	out := FormatSets(rep)
	require.Contains(t, out, "tidepool/tidepool-notes")
	require.Contains(t, out, "source tidepool (all its sets)")
}

// TestSetBaselineCatchesALoss: a figure under its floor, a set the run
// lacks and explicit recall keeping less than MinKept of the ranking's are
// each reported.
func TestSetBaselineCatchesALoss(t *testing.T) {
	rep := &SetReport{Rows: []SetRow{
		{Source: "s", Set: "a", Kind: "task", System: SystemRanking, SetCounts: SetCounts{N: 10, Recall: 5}},
		{Source: "s", Set: "a", Kind: "task", System: SystemExplicit, SetCounts: SetCounts{N: 10, Recall: 4.8}},
		{Source: "s", Set: "a", Kind: "offtopic", System: SystemExplicit, SetCounts: SetCounts{N: 10, NoLabel: 9}},
	}}
	base := SetBaseline{
		{Source: "s", Set: "a", Kind: "task", System: SystemExplicit, Measure: "recall", Min: 0.5},
		{Source: "s", Set: "a", Kind: "offtopic", System: SystemExplicit, Measure: "no_label", Min: 0.9},
		{Source: "s", Set: "gone", Kind: "task", System: SystemExplicit, Measure: "recall", Min: 0.1},
	}
	problems := base.Check(rep)
	require.Len(t, problems, 3, strings.Join(problems, "\n"))
	require.Contains(t, problems[0], "0.480 is below the baseline 0.500")
	require.Contains(t, problems[1], "no query ran")
	require.Contains(t, problems[2], "keeps 0.960 of the ranking's")
}

// TestSetsBaseline runs every set of the shared recall sets (beside the
// project; CI has them): no figure may fall under
// fixtures/eval/sets-baseline.json, and explicit recall keeps MinKept of
// the ranking's recall on every answerable kind of every set.
func TestSetsBaseline(t *testing.T) {
	sets := loadSharedSets(t)
	rep, err := RunSets(context.Background(), sets, SetOptions{})
	require.NoError(t, err)
	if testing.Verbose() {
		t.Logf("\n%s", FormatSets(rep))
	}
	path := filepath.Join(evalDir(), "sets-baseline.json")
	if *updateSetBaseline {
		data, err := json.MarshalIndent(NewSetBaseline(rep), "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
	}
	base, err := LoadSetBaseline(path)
	require.NoError(t, err)
	require.Empty(t, base.Check(rep))
}

// NewSetBaseline records a report's figures, rounded down to three
// decimals: explicit recall and the ranking's per set and kind, off-topic
// queries' share with nothing better than weak per set, and the injection
// point's precision per source.
func NewSetBaseline(rep *SetReport) SetBaseline {
	down := func(x float64) float64 { return math.Floor(x*1000+1e-9) / 1000 }
	var b SetBaseline
	add := func(f SetFloor) {
		if got, n := f.measure(rep); n > 0 {
			f.Min = down(got)
			b = append(b, f)
		}
	}
	type key struct{ source, set, kind string }
	var keys []key
	sources := map[string]bool{}
	for _, r := range rep.Rows {
		if k := (key{r.Source, r.Set, r.Kind}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		sources[r.Source] = true
	}
	for _, k := range keys {
		if k.kind == "offtopic" {
			add(SetFloor{Source: k.source, Set: k.set, Kind: k.kind, System: SystemExplicit, Measure: "no_label"})
			continue
		}
		for _, sys := range []string{SystemRanking, SystemExplicit} {
			add(SetFloor{Source: k.source, Set: k.set, Kind: k.kind, System: sys, Measure: "recall"})
		}
	}
	var names []string
	for s := range sources {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		add(SetFloor{Source: s, System: SystemInjection, Measure: "precision"})
	}
	return b
}
