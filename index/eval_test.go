package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func evalDir() string { return filepath.Join("..", "fixtures", "eval") }

// TestEvalBaseline runs the labelled eval through the recall snapshot and through
// the fallback scan: both must agree, and no result may drop below
// fixtures/eval/baseline.json.
func TestEvalBaseline(t *testing.T) {
	ds, err := LoadDataset(evalDir())
	require.NoError(t, err)
	base, err := LoadBaseline(filepath.Join(evalDir(), "baseline.json"))
	require.NoError(t, err)

	ctx := context.Background()
	indexed, err := RunEval(ctx, ds, EvalOptions{Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, "snapshot", indexed.Source)
	scanned, err := RunEval(ctx, ds, EvalOptions{})
	require.NoError(t, err)
	require.Equal(t, "scan", scanned.Source)
	t.Logf("\n%s", FormatEval(indexed))
	require.Equal(t, FormatEval(scanned), FormatEval(indexed), "the snapshot and the scan must give the same answers")
	require.Equal(t, scanned.Misses, indexed.Misses)
	require.Empty(t, base.Check(indexed))

	if split := os.Getenv("GIT_MEM_EVAL_MISSES"); split != "" {
		for _, m := range indexed.Misses {
			if m.Query.Split == split {
				t.Logf("%s %q: got %v, %s", m.Query.Kind, m.Query.Query, m.Got, m.Reason)
			}
		}
	}
}

func TestEvalRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadDataset(dir)
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memories.jsonl"), []byte("{not json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(""), 0o644))
	_, err = LoadDataset(dir)
	require.ErrorContains(t, err, "memories.jsonl line 1")
	_, err = RunEval(context.Background(), &Dataset{Memories: []EvalMemory{{Key: "a", Type: "fact", Text: "x"}}}, EvalOptions{Ablation: "bogus"})
	require.ErrorContains(t, err, "unknown ablation")
}
