//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol but still sent by the clients git-mem serves; the server follows them until clients stop (the SDK keeps them for at least twelve months).

package mcp

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// BenchmarkAddScale measures memory_add on long-lived stdio connections at
// several store sizes in one run, so that the latency at 100,000 memories
// can be compared with the latency at 1,000 under the same load: each store
// has its own server, and every round makes one add on each, in turn. Each
// call saves a new memory of 12 to 23 words drawn like the seeded ones, so
// the duplicate check has real candidates to rank.
//
// The stores are GIT_MEM_BENCH_STORES (repositories seeded beforehand,
// comma-separated, each copied so the original is left as it was), else
// GIT_MEM_BENCH_SIZES memories (comma-separated, default 1000) seeded here.
// The servers are the built binary (GIT_MEM_BENCH_SERVER=process, the
// default) or this process's own (inproc, over pipes), which a profile then
// sees. Each store's search index is brought up to date before its server
// starts, and a recall and two adds before the timer bring its snapshot up
// to date. It reports, per store of n memories, the median and 90th
// percentile (ms-p50@n, ms-p90@n), a process's resident memory at the end,
// once it is idle (rss-MB@n), and the last store's median over the first's
// (p50-ratio). With GIT_MEM_BENCH_PROFILE=PREFIX the timed calls alone are
// profiled: PREFIX.cpu, and PREFIX.heap0 and PREFIX.heap1 (allocations
// before and after, for go tool pprof -base).
//
//	GIT_MEM_BENCH_STORES=SMALL,LARGE go test ./mcp -run '^$' -bench '^BenchmarkAddScale$' -benchtime 200x
func BenchmarkAddScale(b *testing.B) {
	var dirs []string
	if v := os.Getenv("GIT_MEM_BENCH_STORES"); v != "" {
		for i, src := range strings.Split(v, ",") {
			dir := filepath.Join(b.TempDir(), fmt.Sprintf("repo%d", i))
			if out, err := exec.Command("cp", "-a", strings.TrimSpace(src), dir).CombinedOutput(); err != nil {
				b.Fatalf("copy %s: %v\n%s", src, err, out)
			}
			dirs = append(dirs, dir)
		}
	} else {
		sizes := os.Getenv("GIT_MEM_BENCH_SIZES")
		if sizes == "" {
			sizes = "1000"
		}
		for _, f := range strings.Split(sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("GIT_MEM_BENCH_SIZES: %v", err)
			}
			dir := newRepo(b)
			seedMemories(b, dir, n)
			dirs = append(dirs, dir)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rng := rand.New(rand.NewPCG(3, 4))
	text := func(i int) string {
		var words []string
		for range 12 + rng.IntN(12) {
			words = append(words, benchWords[rng.IntN(len(benchWords))])
		}
		return fmt.Sprintf("Learning %d of the add benchmark: %s.", i, strings.Join(words, " "))
	}
	type target struct {
		label string
		cs    *sdkmcp.ClientSession
		pid   int
		d     []time.Duration
	}
	var targets []*target
	for _, dir := range dirs {
		syncSearchIndex(ctx, b, dir)
		t := &target{label: fmt.Sprint(countMemories(b, dir))}
		t.cs, t.pid = startServer(ctx, b, dir)
		defer t.cs.Close()
		targets = append(targets, t)
	}
	call := func(t *target, name string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := t.cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("%s: %s", name, resultText(res))
		}
		return time.Since(t0)
	}
	for _, t := range targets {
		warm := call(t, ToolRecall, map[string]any{"query": "warm up the index"})
		warm += call(t, ToolAdd, map[string]any{"text": text(-2)})
		warm += call(t, ToolAdd, map[string]any{"text": text(-1)})
		b.Logf("%s memories: warm-up (index and snapshot brought to the store, two adds) %v", t.label, warm.Round(time.Millisecond))
	}
	stop := profileTimed(b, os.Getenv("GIT_MEM_BENCH_PROFILE"))
	for i := 0; b.Loop(); i++ {
		for j := range targets {
			// each store goes first in turn
			t := targets[(i+j)%len(targets)]
			t.d = append(t.d, call(t, ToolAdd, map[string]any{"text": text(i)}))
		}
	}
	b.StopTimer()
	stop()
	for _, t := range targets {
		slices.Sort(t.d)
		b.ReportMetric(float64(t.d[len(t.d)/2])/1e6, "ms-p50@"+t.label)
		b.ReportMetric(float64(t.d[len(t.d)*9/10])/1e6, "ms-p90@"+t.label)
		if t.pid != 0 {
			if _, err := os.Stat("/proc/self/status"); err == nil {
				settle(b, t.pid)
				rss, _ := procMemory(b, t.pid)
				b.ReportMetric(float64(rss), "rss-MB@"+t.label)
			}
		}
	}
	first, last := targets[0], targets[len(targets)-1]
	b.ReportMetric(float64(last.d[len(last.d)/2])/float64(first.d[len(first.d)/2]), "p50-ratio")
}

// startServer connects a client with dir as its root to a server:
// the built binary, or this process's own when GIT_MEM_BENCH_SERVER=inproc.
// pid is the server process's (0 in process).
func startServer(ctx context.Context, b *testing.B, dir string) (cs *sdkmcp.ClientSession, pid int) {
	c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "bench", Version: "1"}, nil)
	c.AddRoots(&sdkmcp.Root{URI: fileURI(dir)})
	opts := &sdkmcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	var err error
	switch mode := os.Getenv("GIT_MEM_BENCH_SERVER"); mode {
	case "", "process":
		server := exec.Command(binary, "mcp")
		server.Dir = dir
		if cs, err = c.Connect(ctx, &sdkmcp.CommandTransport{Command: server}, opts); err == nil {
			pid = server.Process.Pid
		}
	case "inproc":
		// the server reads what the client writes and the other way round,
		// through the same stdio code path as git mem mcp
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		go func() {
			_ = New(Options{Dir: dir, Version: "bench"}).Run(ctx, toServer, fromServer)
			fromServer.Close()
		}()
		b.Cleanup(func() { fromClient.Close() })
		cs, err = c.Connect(ctx, &sdkmcp.IOTransport{Reader: toClient, Writer: fromClient}, opts)
	default:
		b.Fatalf("GIT_MEM_BENCH_SERVER=%s: want process or inproc", mode)
	}
	if err != nil {
		b.Fatal(err)
	}
	return cs, pid
}

// syncSearchIndex builds or brings up to date dir's search index, as the
// first server after a clone does in the background (8 s at 100,000
// memories): the adds are then timed against a server that does only them.
func syncSearchIndex(ctx context.Context, b *testing.B, dir string) {
	set, err := gitstore.OpenSet(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := index.SyncIndex(ctx, set, nil); err != nil {
		b.Fatal(err)
	}
}

// countMemories is the number of memories in dir's project store.
func countMemories(b *testing.B, dir string) int {
	r, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).Read()
	if err != nil {
		b.Fatal(err)
	}
	hashes, err := rd.BlobHashes()
	if err != nil {
		b.Fatal(err)
	}
	return len(hashes)
}

// profileTimed starts a CPU profile and writes a heap profile to prefix.cpu
// and prefix.heap0; the returned function stops them and writes
// prefix.heap1. No prefix: nothing is profiled.
func profileTimed(b *testing.B, prefix string) (stop func()) {
	if prefix == "" {
		return func() {}
	}
	heap := func(name string) {
		f, err := os.Create(prefix + name)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
	}
	heap(".heap0")
	f, err := os.Create(prefix + ".cpu")
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		heap(".heap1")
	}
}
