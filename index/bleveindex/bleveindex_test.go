package bleveindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/evaluation"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
	"github.com/git-mem/git-mem/index/indextest"
)

func TestIncrementalSync(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	require.NotEmpty(t, r.recall("deploy fly.io").Hits)
	dir := index.Dir(r.Set)
	st := readState(dir)
	require.NotNil(t, st)
	docs := st.Docs

	m := r.add("The payments queue retries failed charges three times with exponential backoff.")
	res := r.recall("payments retries backoff")
	require.Equal(t, "index", res.Source, res.Fallback)
	require.False(t, res.Rebuilt)
	require.Equal(t, m.ID, ids(res)[0])
	require.Equal(t, docs+1, readState(dir).Docs)

	_, err := r.Main.Forget(context.Background(), gitstore.Writer{Agent: "test"}, m.ID)
	require.NoError(t, err)
	res = r.recall("payments retries backoff")
	require.NotContains(t, ids(res), m.ID)
	require.False(t, res.Rebuilt)
	require.Equal(t, docs, readState(dir).Docs)
}

func TestRebuildWhenNeeded(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(r *testRepo, dir string)
	}{
		{"missing", func(r *testRepo, dir string) { require.NoError(t, os.RemoveAll(dir)) }},
		{"mapping version", func(r *testRepo, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, stateFile))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, stateFile), []byte(strings.Replace(string(data), fmt.Sprintf(`"version":%d`, index.MappingVersion), `"version":999`, 1)), 0o644))
		}},
		{"another vocabulary", func(r *testRepo, dir string) {
			// built with other thesaurus phrases, which shape documents' terms
			data, err := os.ReadFile(filepath.Join(dir, stateFile))
			require.NoError(t, err)
			other := strings.Replace(string(data), fmt.Sprintf(`"analysis":%d`, index.AnalysisPrint()), `"analysis":1`, 1)
			require.NotEqual(t, string(data), other)
			require.NoError(t, os.WriteFile(filepath.Join(dir, stateFile), []byte(other), 0o644))
		}},
		{"corrupt bleve", func(r *testRepo, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{garbage"), 0o644))
			r.add("An extra memory about deploy previews on Cloudflare Pages.")
		}},
		{"corrupt sidecar", func(r *testRepo, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, stateFile), []byte("\x00\x01"), 0o644))
		}},
		{"history rewritten", func(r *testRepo, dir string) {
			m := r.add("Temporary memory with a secret-looking value that gets purged.")
			r.recall("deploy")
			_, err := r.Set.Repo.Purge(context.Background(), m.ID)
			require.NoError(t, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRepo(t)
			r.seed()
			first := r.recall("deploy api fly.io")
			require.True(t, first.Rebuilt, "the first recall builds the index")
			tc.break_(r, index.Dir(r.Set))
			res := r.recall("deploy api fly.io")
			require.Equal(t, "index", res.Source, res.Fallback)
			require.True(t, res.Rebuilt)
			require.Equal(t, ids(first)[0], ids(res)[0])
			again := r.recall("deploy api fly.io")
			require.False(t, again.Rebuilt)
			require.Equal(t, ids(res), ids(again))
			require.Equal(t, ids(r.recall("deploy api fly.io", func(o *index.Options) { o.NoIndex = true })), ids(again))
		})
	}
}

func TestRebuildRemovesLeftovers(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	dir := index.Dir(r.Set)
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	old := dir + ".tmp-1-2"
	fresh := dir + ".tmp-3-4"
	require.NoError(t, os.MkdirAll(old, 0o755))
	require.NoError(t, os.MkdirAll(fresh, 0o755))
	long := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(old, long, long))
	n, err := index.Rebuild(context.Background(), r.Set, nil)
	require.NoError(t, err)
	require.Equal(t, len(indextest.Seed), n)
	_, err = os.Stat(old)
	require.True(t, os.IsNotExist(err), "a killed rebuild's directory is removed")
	_, err = os.Stat(fresh)
	require.NoError(t, err, "a rebuild that may be in progress is left alone")
	_, err = os.Stat(index.SnapshotPath(r.Set))
	require.NoError(t, err, "reindex writes the recall snapshot too")
}

// withoutEngine runs fn with no engine wired in: recall uses the snapshot.
func withoutEngine(fn func()) {
	index.UseEngine(nil)
	defer index.UseEngine(Engine{})
	fn()
}

// TestThreeCorporaAgree: the bleve index, the recall snapshot and the scan
// give the same answers, with the same scores, on the eval dataset and on
// a generated store large enough for pruning and seeking to happen, its
// matches' sittings included.
func TestThreeCorporaAgree(t *testing.T) {
	ctx := context.Background()
	t.Run("eval", func(t *testing.T) {
		suite, err := dataset.LoadSuite(filepath.Join("..", "..", "fixtures", "eval"))
		require.NoError(t, err)
		ds := &dataset.Suite{Projects: suite.Projects[:1]}
		indexed, err := evaluation.Run(ctx, ds, evaluation.Options{Dir: t.TempDir()})
		require.NoError(t, err)
		require.Equal(t, "index", indexed.Source)
		var snap *evaluation.Report
		withoutEngine(func() { snap, err = evaluation.Run(ctx, ds, evaluation.Options{Dir: t.TempDir()}) })
		require.NoError(t, err)
		require.Equal(t, "snapshot", snap.Source)
		scanned, err := evaluation.Run(ctx, ds, evaluation.Options{})
		require.NoError(t, err)
		require.Equal(t, "scan", scanned.Source)
		require.Equal(t, evaluation.Format(scanned), evaluation.Format(indexed))
		require.Equal(t, evaluation.Format(scanned), evaluation.Format(snap))
		require.Equal(t, scanned.Misses, indexed.Misses)
		require.Equal(t, scanned.Misses, snap.Misses)
	})
	t.Run("generated", func(t *testing.T) {
		r := newTestRepo(t)
		r.seed()
		r.genMemories(2000, 7)
		queries := []string{
			"why does requireAdmin throw after login", "stripe webhook signature error in production",
			"flaky playwright test timeout in ci pipeline", "deploy a release to staging with docker",
			"postgres migration deadlock on the booking table", "redis cache session token expiry",
			"refund invoice payment retry backoff", "what is the capital of peru",
		}
		found, sittings := 0, 0
		// every candidate, with its confidence, not only those an
		// operating point returns; and explicit recall, with sittings
		points := []func(o *index.Options){
			func(o *index.Options) { o.Point = index.Unfiltered },
			func(o *index.Options) { o.Point = index.Explicit },
		}
		for i, q := range append(queries, queries...) {
			point := points[i/len(queries)]
			a := r.recall(q, point)
			var b *index.Result
			withoutEngine(func() { b = r.recall(q, point) })
			c := r.recall(q, point, func(o *index.Options) { o.NoIndex = true })
			require.Equal(t, "index", a.Source, a.Fallback)
			require.Equal(t, "snapshot", b.Source, b.Fallback)
			require.Equal(t, "scan", c.Source)
			require.Equal(t, ids(c), ids(a), q)
			require.Equal(t, ids(c), ids(b), q)
			require.Equal(t, c.Matched, a.Matched, q)
			require.Equal(t, c.Matched, b.Matched, q)
			for i := range c.Hits {
				require.InDelta(t, c.Hits[i].Score, a.Hits[i].Score, 1e-9, q)
				require.InDelta(t, c.Hits[i].Score, b.Hits[i].Score, 1e-9, q)
				require.InDelta(t, c.Hits[i].Confidence, a.Hits[i].Confidence, 1e-9, q)
				require.InDelta(t, c.Hits[i].Confidence, b.Hits[i].Confidence, 1e-9, q)
			}
			found += len(c.Hits)
			for _, h := range c.Hits {
				if h.Relevance == 0 {
					require.Equal(t, 1, i/len(queries), "only explicit recall adds sittings")
					sittings++
				}
			}
		}
		require.Greater(t, found, 10)
		require.Positive(t, sittings, "memories written beside a match come with it from every corpus")
	})
}
