package webui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/indextest"
)

// The page's benchmarks run on a generated store of the size in
// $GIT_MEM_BENCH_UI_MEMORIES (default 100,000): memories of 12 to 40 words
// of a software vocabulary, from several agents, dated over a year, written
// 5,000 per commit. The store is built once under $GIT_MEM_BENCH_DIR
// (default: <temp dir>/git-mem-bench) and reused; delete it to start over.
//
//	go test ./webui/ -run '^$' -bench . -benchtime 50x
//
// docs/ui-bench.md has the figures and how the server's memory was measured.

var benchWords = strings.Fields(`deploy release staging production rollback migration schema database postgres
index query cache redis queue worker job retry backoff timeout latency request response header cookie session
token auth login logout password permission role admin user account customer booking payment refund invoice
stripe webhook signature event handler route endpoint api server client browser react component state form
input validation error exception panic crash log trace metric alert dashboard test unit integration e2e
playwright fixture mock flaky ci pipeline workflow build bundle compile lint typescript golang node pnpm docker
kubernetes cluster region dns certificate tls config env variable flag feature branch merge rebase commit
review timezone utc date schedule cron expire email notification template locale currency price tax cart
checkout order inventory slot calendar marina boat kayak rental harbor dock season capacity waitlist report`)

var benchAgents = []string{"claude-code", "codex", "gemini", "cursor", "cli"}

func benchText(r *rand.Rand) string {
	words := make([]string, 12+r.IntN(29))
	for i := range words {
		// skewed: low indexes are much more frequent
		words[i] = benchWords[int(float64(len(benchWords))*r.Float64()*r.Float64())]
	}
	return strings.Join(words, " ")
}

// benchStore returns the directory of a repository holding n generated
// memories, its recall snapshot built.
func benchStore(b *testing.B, n int) string {
	b.Helper()
	root := os.Getenv("GIT_MEM_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "git-mem-bench")
	}
	dir := filepath.Join(root, fmt.Sprintf("ui-store-%d-v1", n))
	done := filepath.Join(dir, ".git", "bench-complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = indextest.GitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	st := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	types := []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeGotcha, gitstore.TypeConvention, gitstore.TypeCommand}
	const batch = 5000
	start := time.Now()
	for made := 0; made < n; made += batch {
		k := min(batch, n-made)
		_, err := st.Update(context.Background(), gitstore.Writer{Agent: "bench"}, func(tx *gitstore.Tx) error {
			now := tx.Now()
			for range k {
				agent := benchAgents[r.IntN(len(benchAgents))]
				created := now.Add(-time.Duration(r.IntN(365*24)) * time.Hour)
				tx.Put(&gitstore.Memory{
					Schema: gitstore.SchemaVersion, ID: fmt.Sprintf("%016x", r.Uint64()), Type: types[r.IntN(len(types))],
					Text: benchText(r), Source: gitstore.SourceVerified, Trust: 0.75, Agent: agent,
					Created: created, Updated: created, ValidFrom: created,
				})
			}
			tx.Describe("add", fmt.Sprintf("%d generated memories", k), fmt.Sprintf("%016x", made))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("generated %d memories in %s", n, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if _, err := index.Rebuild(context.Background(), gitstore.NewSet(repo), nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed them in %s", time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func benchSize(b *testing.B) int {
	n, err := strconv.Atoi(os.Getenv("GIT_MEM_BENCH_UI_MEMORIES"))
	if err != nil || n <= 0 {
		n = 100000
	}
	return n
}

// benchServer is a server over the generated store, as git mem ui opens it.
func benchServer(b *testing.B) *Server {
	b.Helper()
	dir := benchStore(b, benchSize(b))
	srv, err := New(Options{
		Open: func() (*gitstore.Set, error) {
			r, err := gitstore.Open(dir)
			if err != nil {
				return nil, err
			}
			return gitstore.NewSet(r), nil
		},
		Writer: func(*gitstore.Set) gitstore.Writer { return gitstore.Writer{Agent: "bench"} },
		Port:   8,
	})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

func benchGet(b *testing.B, srv *Server, path string) {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8"+srv.base()+path, nil)
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, w.Code, w.Body.String())
	}
}

// reportMemory adds the process's peak resident memory and the Go heap
// in use after a collection.
func reportMemory(b *testing.B) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for l := range strings.SplitSeq(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				b.ReportMetric(float64(kb)/1024, "MB-peak-rss")
			}
		}
	}
}

func BenchmarkFirstPage(b *testing.B) {
	srv := benchServer(b)
	benchGet(b, srv, "")
	for b.Loop() {
		benchGet(b, srv, "")
	}
	reportMemory(b)
}

func BenchmarkSearch(b *testing.B) {
	srv := benchServer(b)
	queries := []string{"stripe webhook signature fails in production", "flaky playwright test timeout in ci pipeline",
		"how do we deploy a release to staging", "postgres migration deadlock on the booking table"}
	benchGet(b, srv, "?q="+url.QueryEscape(queries[0]))
	i := 0
	for b.Loop() {
		benchGet(b, srv, "?q="+url.QueryEscape(queries[i%len(queries)]))
		i++
	}
	reportMemory(b)
}

func BenchmarkTips(b *testing.B) {
	srv := benchServer(b)
	for b.Loop() {
		benchGet(b, srv, "api/tips")
	}
}
