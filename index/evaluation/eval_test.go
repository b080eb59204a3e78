package evaluation

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

var (
	updateBaseline = flag.Bool("update-baseline", false, "rewrite fixtures/eval/baseline.json from this run")
	baselineSplits = flag.String("eval-splits", "", "comma-separated splits to run (all when empty)")
)

func evalDir() string { return filepath.Join("..", "..", "fixtures", "eval") }

// TestEvalBaseline runs the whole eval (every project, alone and with the
// unrelated memories, both operating points): no figure may drop below
// fixtures/eval/baseline.json, and no superseded memory may be returned.
func TestEvalBaseline(t *testing.T) {
	suite, err := dataset.LoadSuite(evalDir())
	require.NoError(t, err)
	var splits []string
	if *baselineSplits != "" {
		splits = strings.Split(*baselineSplits, ",")
	}
	rep, err := Run(context.Background(), suite, Options{Splits: splits})
	require.NoError(t, err)
	require.Equal(t, "scan", rep.Source)
	if testing.Verbose() {
		t.Logf("\n%s", Format(rep))
	}
	path := filepath.Join(evalDir(), "baseline.json")
	base, err := LoadBaseline(path)
	require.NoError(t, err)
	if *updateBaseline {
		// a partial run rewrites the floors of its splits only
		base = base.Update(rep, splits)
		data, err := json.MarshalIndent(base, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
	}
	if splits != nil {
		base = base.Only(splits) // a partial run is checked on its splits
	}
	require.Empty(t, base.Check(rep))
	if split := os.Getenv("GIT_MEM_EVAL_MISSES"); split != "" {
		for _, m := range rep.Misses {
			if m.Query.Split == split && !m.Crowded {
				t.Logf("%s %s %q: got %v, %s", m.Project, m.Query.Kind, m.Query.Query, m.Got, m.Reason)
			}
		}
	}
}

// TestBaselineUpdateKeepsOtherSplits: updating the baseline from a run of
// some splits rewrites their floors and keeps the others'; a partial run is
// checked against its splits' floors only.
func TestBaselineUpdateKeepsOtherSplits(t *testing.T) {
	base := Baseline{
		{Project: "p", Crowded: "no", Point: "explicit", Kind: "developer", Split: "tune", Measure: "rate", Min: 0.5},
		{Project: "p", Crowded: "no", Point: "explicit", Kind: "developer", Split: "fresh", Measure: "rate", Min: 0.9},
	}
	rep := &Report{Rows: []Row{
		{Project: "p", Point: "explicit", Kind: "developer", Split: "tune", N: 4, Hits: 3},
	}}
	got := base.Update(rep, []string{"tune"})
	require.Equal(t, Baseline{
		{Project: "p", Crowded: "no", Point: "explicit", Kind: "developer", Split: "tune", Measure: "rate", Min: 0.75},
		{Project: "p", Crowded: "no", Point: "explicit", Kind: "developer", Split: "fresh", Measure: "rate", Min: 0.9},
	}, got)
	require.Empty(t, got.Only([]string{"tune"}).Check(rep))
	require.NotEmpty(t, got.Check(rep), "the fresh floor is not met by a run without fresh")
	require.Equal(t, NewBaseline(rep), base.Update(rep, nil), "a whole run rewrites every floor")
}

// TestEvalSnapshotAgreesWithScan: the first project through Recall and the
// recall snapshot gives the same answers as the scan the eval uses.
func TestEvalSnapshotAgreesWithScan(t *testing.T) {
	suite, err := dataset.LoadSuite(evalDir())
	require.NoError(t, err)
	one := &dataset.Suite{Projects: suite.Projects[:1]}
	ctx := context.Background()
	indexed, err := Run(ctx, one, Options{Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, "snapshot", indexed.Source)
	scanned, err := Run(ctx, one, Options{})
	require.NoError(t, err)
	require.Equal(t, "scan", scanned.Source)
	require.Equal(t, scanned.Rows, indexed.Rows)
	require.Equal(t, scanned.Misses, indexed.Misses)
}

func TestEvalRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	_, err := dataset.LoadDataset(dir)
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memories.jsonl"), []byte("{not json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(""), 0o644))
	_, err = dataset.LoadDataset(dir)
	require.ErrorContains(t, err, "memories.jsonl line 1")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "memories.jsonl"), []byte(`{"key":"a","type":"fact","text":"the api runs on port 8080"}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(`{"query":"port?","kind":"developer","expect":["b"]}`+"\n"), 0o644))
	_, err = dataset.LoadDataset(dir)
	require.ErrorContains(t, err, "unknown memory b")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(`{"query":"port?","kind":"vibes","expect":["a"]}`+"\n"), 0o644))
	_, err = dataset.LoadDataset(dir)
	require.ErrorContains(t, err, `unknown kind "vibes"`)

	_, err = dataset.LoadSuite(t.TempDir())
	require.ErrorContains(t, err, "holds no project")
	_, err = Run(context.Background(), &dataset.Suite{Projects: []*dataset.Dataset{{Name: "x", Memories: []dataset.Memory{{Key: "a", Type: "fact", Text: "x"}}}}}, Options{Ablation: "bogus"})
	require.ErrorContains(t, err, "unknown ablation")
}

// TestEvalDatesMemories: age_days dates a memory, and a replacement closes
// the memory it supersedes when it was written.
func TestEvalDatesMemories(t *testing.T) {
	suite := &dataset.Suite{Projects: []*dataset.Dataset{{Name: "p", Memories: []dataset.Memory{
		{Key: "old", Type: "fact", Text: "the api listens on port 8080", AgeDays: 300},
		{Key: "new", Type: "fact", Text: "the api listens on port 9090", AgeDays: 20, Supersedes: "old"},
	}}}}
	run, err := newEvalRun(context.Background(), suite.Projects[0], suite, false, Options{})
	require.NoError(t, err)
	rd, err := run.st.Set.Stores()[0].Read()
	require.NoError(t, err)
	old, err := rd.Get(dataset.ID("old"))
	require.NoError(t, err)
	require.Equal(t, dataset.Epoch.AddDate(0, 0, -300), old.Created)
	require.NotNil(t, old.ValidTo)
	require.Equal(t, dataset.Epoch.AddDate(0, 0, -20), *old.ValidTo)

	run, err = newEvalRun(context.Background(), suite.Projects[0], suite, false, Options{Undated: true})
	require.NoError(t, err)
	rd, err = run.st.Set.Stores()[0].Read()
	require.NoError(t, err)
	old, err = rd.Get(dataset.ID("old"))
	require.NoError(t, err)
	require.Equal(t, dataset.Epoch, old.Created, "undated: every memory written at the eval's now")
}
