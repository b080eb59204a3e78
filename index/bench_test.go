package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
)

// Benchmarks run on generated stores: memories of 12 to 40 words drawn from a
// software vocabulary with a Zipf-like skew, plus identifiers and paths,
// written many per commit so that setup takes seconds, not hours. Stores are
// built once per size and process, under the system temp dir.
//
//	go test ./index/ -run '^$' -bench 'Recall|Sync' -benchtime 200x
//	go test ./index/ -run '^$' -bench '100k' -benchtime 20x

var benchWords = strings.Fields(`
deploy release staging production rollback migration schema database postgres index query cache redis
queue worker job retry backoff timeout latency throughput request response header cookie session token
auth login logout password permission role admin user account customer booking payment refund invoice
stripe webhook signature event handler route endpoint api server client browser react component state
hook effect render form input validation error exception panic crash log trace metric alert dashboard
monitor test unit integration e2e playwright vitest fixture mock stub flaky ci pipeline workflow build
bundle compile lint format typescript golang node pnpm docker container kubernetes cluster region dns
certificate tls secret config env variable flag feature toggle branch merge rebase commit review approve
owner team oncall incident outage latency memory cpu disk network proxy gateway cors origin upload file
storage bucket s3 backup restore snapshot replica failover transaction lock deadlock isolation constraint
unique foreign key column table row batch stream pagination cursor offset limit sort filter search
timezone utc date time schedule cron expire ttl email notification sms template locale translation
currency price tax discount coupon cart checkout order inventory availability slot calendar marina boat
kayak rental harbor dock season weather capacity waitlist reminder receipt report export import csv json
`)

var benchIdents = []string{"requireAdmin", "server/auth.ts", "ERR_NO_SESSION", "apps/web/src/App.tsx", "BookingWizard",
	"worker/internal/jobs.go", "useAvailability", "STRIPE_WEBHOOK_SECRET", "db/migrations/0042_slots.sql", "createCheckoutSession"}

func benchText(r *rand.Rand) string {
	n := 12 + r.IntN(29)
	words := make([]string, n)
	for i := range words {
		// skewed: low indexes are much more frequent
		k := int(float64(len(benchWords)) * r.Float64() * r.Float64())
		words[i] = benchWords[k]
		if r.IntN(12) == 0 {
			words[i] = benchIdents[r.IntN(len(benchIdents))]
		}
	}
	return strings.Join(words, " ")
}

// genStore writes n generated memories into the store, batch per commit.
func genStore(tb testing.TB, st *gitstore.Store, n int, seed uint64) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 42))
	types := []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeGotcha, gitstore.TypeConvention, gitstore.TypeCommand}
	const batch = 5000
	for done := 0; done < n; done += batch {
		k := min(batch, n-done)
		_, err := st.Update(context.Background(), gitstore.Writer{Agent: "bench"}, func(tx *gitstore.Tx) error {
			now := tx.Now()
			for i := 0; i < k; i++ {
				m := &gitstore.Memory{
					Schema: gitstore.SchemaVersion, ID: fmt.Sprintf("%016x", r.Uint64()), Type: types[r.IntN(len(types))],
					Text: benchText(r), Source: gitstore.SourceVerified, Trust: 0.75, Agent: "bench",
					Created: now.Add(-time.Duration(r.IntN(365*24)) * time.Hour), Updated: now, ValidFrom: now,
				}
				tx.Put(m)
			}
			tx.Describe("add", fmt.Sprintf("%d generated memories", k), fmt.Sprintf("%016x", done))
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

var (
	benchMu    sync.Mutex
	benchRepos = map[int]string{}
)

// benchRepo returns a bare repository holding n generated memories; its
// recall snapshot is built too. Stores are kept between runs under
// $GIT_MEM_BENCH_DIR (default: <temp dir>/git-mem-bench) and reused when
// complete; delete that folder to start over. BenchmarkSyncAfterAdd adds to
// the 10,000 store, so later runs have a few more.
func benchRepo(b *testing.B, n int) *gitstore.Set {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	dir, ok := benchRepos[n]
	if !ok {
		root := os.Getenv("GIT_MEM_BENCH_DIR")
		if root == "" {
			root = filepath.Join(os.TempDir(), "git-mem-bench")
		}
		base := filepath.Join(root, fmt.Sprintf("store-%d-v1", n))
		dir = filepath.Join(base, "eval.git")
		done := filepath.Join(base, "complete")
		if _, err := os.Stat(done); err != nil {
			os.RemoveAll(base)
			repo, err := dataset.ScratchRepo(base)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			genStore(b, gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject), n, uint64(n))
			b.Logf("generated %d memories in %s", n, time.Since(start).Round(time.Millisecond))
			if err := os.WriteFile(done, nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		benchRepos[n] = dir
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	set := gitstore.NewSet(repo)
	if _, err := os.Stat(SnapshotPath(set)); err != nil {
		start := time.Now()
		if _, err := Rebuild(context.Background(), set, nil); err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %d memories in %s", n, time.Since(start).Round(time.Millisecond))
	}
	return set
}

var benchQueries = []string{
	"why does requireAdmin throw ERR_NO_SESSION after login",
	"stripe webhook signature fails in production",
	"flaky playwright test timeout in ci pipeline",
	"how do we deploy a release to staging",
	"postgres migration deadlock on the bookings table",
}

func benchRecall(b *testing.B, n int, noIndex bool) {
	set := benchRepo(b, n)
	ctx := context.Background()
	res, err := Recall(ctx, set, Options{Query: benchQueries[0], NoIndex: noIndex})
	if err != nil || (!noIndex && res.Source != "snapshot") {
		b.Fatalf("%v %+v", err, res)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := Recall(ctx, set, Options{Query: benchQueries[i%len(benchQueries)], NoIndex: noIndex}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRecall recalls from the snapshot (no engine is wired in here):
// what a prompt hook does at 1,000 and 10,000 memories.
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchRecall(b, n, false) })
	}
}

func BenchmarkRecall100k(b *testing.B) { benchRecall(b, 100000, false) }

// BenchmarkRecallScan is the fallback: no index, every memory read and scored.
func BenchmarkRecallScan(b *testing.B) {
	b.Run("10000", func(b *testing.B) { benchRecall(b, 10000, true) })
}

// BenchmarkSyncAfterAdd: one memory is added (not timed), then a recall
// brings the snapshot forward by one commit and answers.
func BenchmarkSyncAfterAdd(b *testing.B) {
	b.Run("10000", func(b *testing.B) {
		set := benchRepo(b, 10000)
		st := set.Stores()[0]
		ctx := context.Background()
		r := rand.New(rand.NewPCG(7, 7))
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			if _, err := st.Add(ctx, gitstore.Writer{Agent: "bench"}, gitstore.NewMemory{Text: benchText(r), AllowSecret: true}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := Recall(ctx, set, Options{Query: benchQueries[1]})
			if err != nil || res.Source != "snapshot" || res.Rebuilt {
				b.Fatalf("%v %+v", err, res)
			}
		}
	})
}

// BenchmarkReindex100k is a full rebuild at 100,000 memories (run it with
// -benchtime 1x or 3x: one rebuild takes about a minute).
func BenchmarkReindex100k(b *testing.B) {
	set := benchRepo(b, 100000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Rebuild(context.Background(), set, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecallDelta recalls at 10,000 memories while the snapshot's
// delta grows: every reader parses the delta, so its cost grows with it
// until a write folds it into the base. The store is a copy, so the other
// benchmarks' store keeps no delta.
func BenchmarkRecallDelta(b *testing.B) {
	benchRepo(b, 10000)
	benchMu.Lock()
	src := benchRepos[10000]
	benchMu.Unlock()
	dir := filepath.Join(b.TempDir(), "eval.git")
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	set := gitstore.NewSet(repo)
	st := set.Stores()[0]
	ctx := context.Background()
	defer func(lo, hi int64) { minFoldAt, maxFoldAt = lo, hi }(minFoldAt, maxFoldAt)
	minFoldAt, maxFoldAt = 4<<20, 4<<20
	seed := uint64(0)
	for _, kb := range []int64{0, 128, 512, 1024} {
		for deltaSize(set) < kb<<10 {
			seed++
			genStore(b, st, 50, seed)
			if _, err := Recall(ctx, set, Options{Query: benchQueries[0]}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			i := 0
			for b.Loop() {
				res, err := Recall(ctx, set, Options{Query: benchQueries[i%len(benchQueries)]})
				if err != nil || res.Source != "snapshot" || res.Rebuilt {
					b.Fatalf("%v %+v", err, res)
				}
				i++
			}
			b.ReportMetric(float64(deltaSize(set))/1024, "delta-KB")
		})
	}
}

func deltaSize(set *gitstore.Set) int64 {
	st, err := os.Stat(deltaPath(SnapshotPath(set)))
	if err != nil {
		return 0
	}
	return st.Size()
}
