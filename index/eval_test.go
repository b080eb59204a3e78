package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// baseline is fixtures/eval/baseline.json: the lowest rate accepted per kind
// and split; the eval fails when a result drops below it.
type baseline map[string]map[string]float64

func evalDir() string { return filepath.Join("..", "fixtures", "eval") }

func TestEvalBaseline(t *testing.T) {
	ds, err := LoadDataset(evalDir())
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(evalDir(), "baseline.json"))
	require.NoError(t, err)
	var base baseline
	require.NoError(t, json.Unmarshal(data, &base))

	ctx := context.Background()
	indexed, err := RunEval(ctx, ds, EvalOptions{Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, "index", indexed.Source)
	scanned, err := RunEval(ctx, ds, EvalOptions{})
	require.NoError(t, err)
	require.Equal(t, "scan", scanned.Source)
	t.Logf("\n%s", FormatEval(indexed))
	require.Equal(t, FormatEval(scanned), FormatEval(indexed), "the index and the scan must give the same answers")

	for kind, splits := range base {
		for split, min := range splits {
			got := indexed.Row(kind, split)
			require.GreaterOrEqualf(t, got.Rate, min, "%s/%s recall dropped below the baseline", kind, split)
		}
	}
	for _, kind := range []string{"developer", "paraphrase", "offtopic", "superseded"} {
		require.Zerof(t, indexed.Row(kind, "all").Forbidden, "%s: a superseded memory was returned as current", kind)
	}
	if os.Getenv("GIT_MEM_EVAL_MISSES") != "" {
		for _, m := range indexed.Misses {
			if m.Query.Split == os.Getenv("GIT_MEM_EVAL_MISSES") {
				t.Logf("%s %q: got %v, %s", m.Query.Kind, m.Query.Query, m.Got, m.Reason)
			}
		}
	}
}
