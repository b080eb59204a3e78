package index

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

var updateSetBaseline = flag.Bool("update-set-baseline", false, "rewrite fixtures/eval/sets-baseline.json from this run")

func exampleSetsDir() string { return filepath.Join("..", "fixtures", "evalsets") }

func TestLoadSets(t *testing.T) {
	sets, err := LoadSets(exampleSetsDir())
	require.NoError(t, err)
	require.Len(t, sets, 1)
	ds := sets[0]
	require.Equal(t, "tidepool-notes", ds.Name)
	require.Equal(t, "tidepool", ds.Source, "a set's source is its directory")
	require.Len(t, ds.Memories, 8)
	require.Equal(t, time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC), ds.Memories[1].At, "a date alone is midnight UTC")
	require.Equal(t, []string{"sensors/ph_driver.go"}, ds.Memories[0].Paths)
	require.Len(t, ds.Queries, 6)
	require.Equal(t, []string{"n6", "n7"}, ds.Queries[2].Expect)
	require.Equal(t, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), ds.Queries[2].At)
	splits := map[string]int{}
	for _, q := range ds.Queries {
		require.Equal(t, setSplit(ds.Name, q.ID), q.Split, "the split is a function of the set and the id")
		splits[q.Split]++
	}
	require.Equal(t, 6, splits["tune"]+splits["test"])
}

func TestLoadSetRejects(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"unknown relevant memory", `{"name":"x","memories":[{"id":"a","text":"t"}],"queries":[{"id":"q","text":"t","kind":"k","relevant":["b"]}]}`, "unknown memory b"},
		{"repeated id", `{"name":"x","memories":[{"id":"a","text":"t"},{"id":"a","text":"u"}],"queries":[]}`, "repeated"},
		{"bad date", `{"name":"x","memories":[{"id":"a","text":"t","date":"last tuesday"}],"queries":[]}`, "neither RFC 3339"},
		{"not JSON", `{"name":`, "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.json"), []byte(tc.body), 0o644))
			_, err := LoadSets(dir)
			require.ErrorIs(t, err, gitstore.ErrInvalid)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := LoadSets(t.TempDir())
	require.ErrorContains(t, err, "holds no recall set")
}

// TestRunSetsMeasures: each system is measured on the same queries; the
// ranking finds the notes, explicit recall keeps all of it, labels the
// off-topic questions' matches weak, and plain BM25 is the reference.
func TestRunSetsMeasures(t *testing.T) {
	sets, err := LoadSets(exampleSetsDir())
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
