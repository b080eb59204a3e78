package embedding_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/embedding/embedtest"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// repoWith is a real repository whose git config holds the settings.
func repoWith(t *testing.T, settings ...string) *gitstore.Repo {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	dir := t.TempDir()
	run := func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	run("init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	for i := 0; i+1 < len(settings); i += 2 {
		run("config", settings[i], settings[i+1])
	}
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	return repo
}

func open(t *testing.T, url string, more ...string) *embedding.Embedder {
	t.Helper()
	e := embedding.Open(repoWith(t, append([]string{"mem.embed.url", url, "mem.embed.model", "stand-in"}, more...)...))
	require.NotNil(t, e)
	return e
}

var synonyms = map[string]string{"widget": "frobnicator", "cycling": "rotate", "keys": "credentials"}

func TestOpenWithoutConfigIsNil(t *testing.T) {
	repo := repoWith(t)
	require.Nil(t, embedding.Open(repo))
	require.Empty(t, embedding.Unreported(repo))
	_, err := os.Stat(repo.Mem().Vectors())
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is created without mem.embed.url")
	// a model is needed too
	require.Nil(t, embedding.Open(repoWith(t, "mem.embed.url", "http://127.0.0.1:1")))
}

func TestConfig(t *testing.T) {
	e := open(t, "http://127.0.0.1:1", "mem.embed.timeout", "750ms", "mem.embed.minScore", "0.6", "mem.embed.keyEnv", "GIT_MEM_TEST_KEY")
	c := e.Config()
	require.Equal(t, 750*time.Millisecond, c.Timeout)
	require.InDelta(t, 0.6, c.MinScore, 1e-9)
	require.InDelta(t, 0.8, c.InjectScore(), 1e-9)
	c = open(t, "http://127.0.0.1:1", "mem.embed.timeout", "300", "mem.embed.minScore", "7").Config()
	require.Equal(t, 300*time.Millisecond, c.Timeout)
	require.Equal(t, embedding.DefaultMinScore, c.MinScore, "an impossible score keeps the default")
}

func TestFillSearchAndModelKey(t *testing.T) {
	srv := embedtest.Start(t, synonyms)
	e := open(t, srv.URL)
	items := []embedding.Item{
		{Key: "project:a", Text: "Rotate the frobnicator credentials every Tuesday"},
		{Key: "project:b", Text: "The build writes binaries under out/"},
		{Key: "project:c", Text: "Rotate the frobnicator credentials every Tuesday"}, // same text: reused
	}
	res, err := e.Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	require.Equal(t, embedding.FillResult{Embedded: 2, Reused: 1}, res)
	_, inputs := srv.Counts()
	require.Equal(t, 2, inputs)

	q, err := e.Query(context.Background(), "widget keys cycling every tuesday", now)
	require.NoError(t, err)
	ms, err := e.Search(context.Background(), q, 10, 0.5)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, []string{"project:a", "project:c"}, []string{ms[0].Key, ms[1].Key})
	require.Greater(t, ms[0].Score, 0.95)
	require.Equal(t, embedding.HashOf(items[0].Text), ms[0].Hash)

	// filled again: nothing to ask
	res, err = e.Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	require.Equal(t, embedding.FillResult{}, res)
	_, again := srv.Counts()
	require.Equal(t, inputs+1, again, "only the query was embedded since")

	// a new text for a key is embedded again
	items[1].Text = "The build writes binaries under dist/"
	res, err = e.Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	require.Equal(t, 1, res.Embedded)

	// another model: another cache, every text embedded again
	other := embedding.Open(repoWith(t, "mem.embed.url", srv.URL, "mem.embed.model", "other-model"))
	require.NotEqual(t, e.CachePath(), other.CachePath())
	// (a new repository: point it at the same cache directory's model file)
	res, err = other.Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	require.Equal(t, 2, res.Embedded)
}

func TestModelChangeInSameRepoReembeds(t *testing.T) {
	srv := embedtest.Start(t, nil)
	repo := repoWith(t, "mem.embed.url", srv.URL, "mem.embed.model", "m1")
	items := []embedding.Item{{Key: "project:a", Text: "alpha beta"}}
	_, err := embedding.Open(repo).Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	out, err := exec.Command("git", "-C", repo.WorkTree, "config", "mem.embed.model", "m2").CombinedOutput()
	require.NoError(t, err, string(out))
	repo2, err := gitstore.Open(repo.WorkTree)
	require.NoError(t, err)
	res, err := embedding.Open(repo2).Fill(context.Background(), items, now, nil)
	require.NoError(t, err)
	require.Equal(t, 1, res.Embedded, "the vectors of m1 are not m2's")
	files, err := filepath.Glob(filepath.Join(repo.Mem().Vectors(), "*.vec"))
	require.NoError(t, err)
	require.Len(t, files, 2)
}

func TestBadEndpoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*embedtest.Server)
		want string
	}{
		{"not found", func(s *embedtest.Server) { s.Status = 404 }, "HTTP 404"},
		{"server error", func(s *embedtest.Server) { s.Status = 500 }, "HTTP 500"},
		{"bad JSON", func(s *embedtest.Server) { s.Body = "{not json" }, "not an embeddings response"},
		{"no data", func(s *embedtest.Server) { s.Body = `{"data":[]}` }, "0 embeddings for 1 inputs"},
		{"zero vector", func(s *embedtest.Server) { s.Body = `{"data":[{"index":0,"embedding":[0,0]}]}` }, "zero or non-finite"},
		{"slow", func(s *embedtest.Server) { s.Delay = time.Second }, "no answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := embedtest.Start(t, nil)
			srv.Set(tc.set)
			e := open(t, srv.URL, "mem.embed.timeout", "200ms")
			start := time.Now()
			_, err := e.Query(context.Background(), "where do binaries go", now)
			require.ErrorIs(t, err, embedding.ErrEndpoint)
			require.ErrorContains(t, err, tc.want)
			require.Less(t, time.Since(start), 1500*time.Millisecond)
			st := e.State()
			require.NotNil(t, st)
			require.Contains(t, st.Error, tc.want)

			// within the back-off window the endpoint is not asked again
			before, _ := srv.Counts()
			_, err = e.Query(context.Background(), "another question entirely", now.Add(time.Minute))
			require.ErrorIs(t, err, embedding.ErrBackoff)
			after, _ := srv.Counts()
			require.Equal(t, before, after)
		})
	}
}

func TestWrongDimensionInOneAnswer(t *testing.T) {
	srv := embedtest.Start(t, nil)
	srv.Set(func(s *embedtest.Server) {
		s.Body = `{"data":[{"index":0,"embedding":[1,0,0]},{"index":1,"embedding":[1,0]}]}`
	})
	e := open(t, srv.URL)
	_, err := e.Fill(context.Background(), []embedding.Item{{Key: "project:a", Text: "one"}, {Key: "project:b", Text: "two"}}, now, nil)
	require.ErrorIs(t, err, embedding.ErrEndpoint)
	require.ErrorContains(t, err, "dimensions")
}

func TestDimensionChangeUnderSameModel(t *testing.T) {
	srv := embedtest.Start(t, nil)
	e := open(t, srv.URL)
	_, err := e.Fill(context.Background(), []embedding.Item{{Key: "project:a", Text: "one"}}, now, nil)
	require.NoError(t, err)
	srv.Set(func(s *embedtest.Server) { s.Dim = 64 })
	_, err = e.Fill(context.Background(), []embedding.Item{{Key: "project:b", Text: "two"}}, now, nil)
	require.ErrorContains(t, err, "64-dimensional")
	q, err := e.Query(context.Background(), "three", now.Add(time.Hour))
	require.NoError(t, err)
	_, err = e.Search(context.Background(), q, 5, 0)
	require.ErrorContains(t, err, "the query vector has 64 dimensions, the cache 256")
}

func TestDeadEndpointThenRecovery(t *testing.T) {
	repo := repoWith(t, "mem.embed.url", embedtest.DeadURL(t), "mem.embed.model", "stand-in")
	e := embedding.Open(repo)
	_, err := e.Query(context.Background(), "anything at all", now)
	require.ErrorIs(t, err, embedding.ErrEndpoint)
	msg := embedding.Unreported(repo)
	require.Contains(t, msg, "embeddings unavailable since 2026-12-01T12:00:00Z")
	require.Empty(t, embedding.Unreported(repo), "reported once")
	_, err = e.Query(context.Background(), "anything else", now.Add(time.Second))
	require.ErrorIs(t, err, embedding.ErrBackoff)

	// past the window the endpoint is asked again; when it answers the failure is over
	srv := embedtest.Start(t, nil)
	out, err := exec.Command("git", "-C", repo.WorkTree, "config", "mem.embed.url", srv.URL).CombinedOutput()
	require.NoError(t, err, string(out))
	repo2, err := gitstore.Open(repo.WorkTree)
	require.NoError(t, err)
	e2 := embedding.Open(repo2)
	require.Nil(t, e2.State(), "another endpoint's failure says nothing of this one")
	_, err = e2.Query(context.Background(), "anything else", now.Add(embedding.BackoffWindow))
	require.NoError(t, err)
	require.Nil(t, e2.State())
}

func TestCallerDeadlineIsNotAFailure(t *testing.T) {
	srv := embedtest.Start(t, nil)
	srv.Set(func(s *embedtest.Server) { s.Delay = time.Second })
	e := open(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := e.Query(ctx, "a hook with no time left", now)
	require.Error(t, err)
	require.Nil(t, e.State(), "a hook out of time says nothing about the endpoint")
}

func TestKeyFromEnvironmentOnly(t *testing.T) {
	srv := embedtest.Start(t, nil)
	t.Setenv("GIT_MEM_TEST_EMBED_KEY", "sk-local-123")
	e := open(t, srv.URL, "mem.embed.keyEnv", "GIT_MEM_TEST_EMBED_KEY")
	_, err := e.Query(context.Background(), "hello there", now)
	require.NoError(t, err)
	srv.Set(func(s *embedtest.Server) {
		require.Equal(t, []string{"Bearer sk-local-123"}, s.Auth)
		s.Status = 401
	})
	_, err = e.Query(context.Background(), "hello again", now)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "sk-local-123")
	data, _ := os.ReadFile(filepath.Join(e.Dir(), "state.json"))
	require.NotContains(t, string(data), "sk-local-123")
}

func TestSecretsAreNeverSent(t *testing.T) {
	srv := embedtest.Start(t, nil)
	e := open(t, srv.URL)
	tok := "ghp_" + strings.Repeat("a1B2", 9)
	_, err := e.Query(context.Background(), "why does "+tok+" fail", now)
	require.ErrorIs(t, err, embedding.ErrSecret)
	res, err := e.Fill(context.Background(), []embedding.Item{{Key: "project:a", Text: "token " + tok}}, now, nil)
	require.NoError(t, err)
	require.Equal(t, 1, res.Skipped)
	req, _ := srv.Counts()
	require.Zero(t, req)
}

func TestPrune(t *testing.T) {
	srv := embedtest.Start(t, nil)
	e := open(t, srv.URL)
	secretText := "the purged memory text"
	_, err := e.Fill(context.Background(), []embedding.Item{{Key: "project:a", Text: "kept memory"}, {Key: "project:b", Text: secretText}}, now, nil)
	require.NoError(t, err)
	h := embedding.HashOf(secretText)
	data, err := os.ReadFile(e.CachePath())
	require.NoError(t, err)
	require.Contains(t, string(data), string(h[:]))
	removed, err := embedding.Prune(e.Dir(), func(key string, _ embedding.Hash) bool { return key != "project:b" })
	require.NoError(t, err)
	require.Equal(t, 1, removed)
	data, err = os.ReadFile(e.CachePath())
	require.NoError(t, err)
	require.NotContains(t, string(data), string(h[:]))
	require.NotContains(t, string(data), "project:b")
	n, err := e.Count()
	require.NoError(t, err)
	require.Equal(t, 1, n)
	// nothing to prune: the file is left alone
	removed, err = embedding.Prune(e.Dir(), func(string, embedding.Hash) bool { return true })
	require.NoError(t, err)
	require.Zero(t, removed)
	removed, err = embedding.Prune(filepath.Join(t.TempDir(), "none"), nil)
	require.NoError(t, err)
	require.Zero(t, removed)
}

func TestDamagedRecordsAreSkipped(t *testing.T) {
	srv := embedtest.Start(t, nil)
	e := open(t, srv.URL)
	_, err := e.Fill(context.Background(), []embedding.Item{{Key: "project:a", Text: "first"}}, now, nil)
	require.NoError(t, err)
	// a torn record (a writer that died mid-write), then more records
	f, err := os.OpenFile(e.CachePath(), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("GMV1\x40\x01\x00\x00garbage"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = e.Fill(context.Background(), []embedding.Item{{Key: "project:b", Text: "second"}}, now, nil)
	require.NoError(t, err)
	// a fresh process reads both
	fresh := embedding.Open(repoWith(t, "mem.embed.url", srv.URL, "mem.embed.model", "stand-in"))
	require.NoError(t, os.MkdirAll(fresh.Dir(), 0o755))
	data, err := os.ReadFile(e.CachePath())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fresh.CachePath(), data, 0o600))
	n, err := fresh.Count()
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

// TestConcurrentWriters: two processes append to one vector file at once;
// every record of both is read back.
func TestConcurrentWriters(t *testing.T) {
	srv := embedtest.Start(t, nil)
	repo := repoWith(t, "mem.embed.url", srv.URL, "mem.embed.model", "stand-in")
	e := embedding.Open(repo)
	const each = 60
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "GIT_MEM_EMBED_WRITER_DIR="+repo.WorkTree, "GIT_MEM_EMBED_WRITER="+strconv.Itoa(w),
				"GIT_MEM_EMBED_N="+strconv.Itoa(each))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[w] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	n, err := e.Count()
	require.NoError(t, err)
	require.Equal(t, 2*each, n)
}

// TestWriterProcess is TestConcurrentWriters' helper: it fills one item at
// a time, so that its appends interleave with the other process's.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv("GIT_MEM_EMBED_WRITER_DIR")
	if dir == "" {
		t.Skip("run by TestConcurrentWriters")
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	n, _ := strconv.Atoi(os.Getenv("GIT_MEM_EMBED_N"))
	w := os.Getenv("GIT_MEM_EMBED_WRITER")
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	e := embedding.Open(repo)
	require.NotNil(t, e)
	for i := range n {
		items := []embedding.Item{{Key: fmt.Sprintf("project:%s-%d", w, i), Text: fmt.Sprintf("writer %s memory %d", w, i)}}
		_, err := e.Fill(context.Background(), items, now, nil)
		require.NoError(t, err)
	}
}

// benchVectors are n random unit vectors of dim components.
func benchVectors(n, dim int) [][]float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float64, dim)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		vecs[i] = embedding.Unit(v)
	}
	return vecs
}

// BenchmarkLoad100k: reading a vector file of 100,000 768-dimensional
// vectors, as a new process (a hook, the CLI) does before its first search.
func BenchmarkLoad100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "v.vec")
	require.NoError(b, embedding.WriteCache(path, benchVectors(100_000, 768)))
	st, err := os.Stat(path)
	require.NoError(b, err)
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
	b.ResetTimer()
	for b.Loop() {
		n, err := embedding.LoadFresh(path)
		if err != nil || n != 100_000 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkSearch100k: an exact search of 100,000 cached 768-dimensional
// vectors (a common local model's size), the cache already read.
func BenchmarkSearch100k(b *testing.B) {
	vecs := benchVectors(100_000, 768)
	c := embedding.NewCacheOf(vecs)
	q := vecs[31_337]
	b.ResetTimer()
	for b.Loop() {
		ms := embedding.SearchCache(c, q, 10, 0.5)
		if len(ms) == 0 {
			b.Fatal("the query's own vector was not found")
		}
	}
}

func TestLocalhostAndBaseURLs(t *testing.T) {
	srv := embedtest.Start(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, u := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port + "/v1/", "http://localhost:" + port + "/v1/embeddings"} {
		e := open(t, u)
		_, err := e.Query(context.Background(), "hello from "+u, now)
		require.NoError(t, err, u)
	}
	_, err := open(t, "https://127.0.0.1:"+port).Query(context.Background(), "over tls", now)
	require.ErrorContains(t, err, "only http:// is supported")
}

// TestSearchWithinDeadline: a process with little time left (a hook) does
// not start reading a vector file it cannot read in time.
func TestSearchWithinDeadline(t *testing.T) {
	srv := embedtest.Start(t, nil)
	e := open(t, srv.URL)
	require.NoError(t, os.MkdirAll(e.Dir(), 0o755))
	vecs := benchVectors(20_000, embedtest.Dim) // ~6 MiB
	require.NoError(t, embedding.WriteCache(e.CachePath(), vecs))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := e.Search(ctx, vecs[7], 5, 0.5)
	require.ErrorContains(t, err, "cannot be read in the time left")
	ms, err := e.Search(context.Background(), vecs[7], 5, 0.5)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.InDelta(t, 1, ms[0].Score, 0.01)
	// read once, what is left to read is nothing: the short deadline is enough now
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	_, err = e.Search(ctx2, vecs[7], 5, 0.5)
	require.NoError(t, err)
}
