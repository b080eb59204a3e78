//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol but still sent by the clients git-mem serves; the server follows them until clients stop (the SDK keeps them for at least twelve months).

package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServerMemory measures what one long-lived server holds after
// many tool calls: it seeds GIT_MEM_BENCH_MEMORIES memories (default
// 100,000), starts the built binary's server as an agent does, makes
// GIT_MEM_BENCH_CALLS calls (default 1,000: memory_add and memory_recall in
// turn), and reports the server's resident memory (rss-MB) and its peak
// (hwm-MB) from /proc, after the warm-up call and at the end, once the
// server is idle.
//
//	go test ./mcp -run '^$' -bench '^BenchmarkServerMemory$' -benchtime 1x -timeout 60m
func BenchmarkServerMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads the server's memory from /proc")
	}
	n := envInt("GIT_MEM_BENCH_MEMORIES", 100000)
	calls := envInt("GIT_MEM_BENCH_CALLS", 1000)
	dir := newRepo(b)
	seedMemories(b, dir, n)
	ctx := context.Background()
	server := exec.Command(binary, "mcp")
	server.Dir = dir
	c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "bench", Version: "1"}, nil)
	c.AddRoots(&sdkmcp.Root{URI: fileURI(dir)})
	cs, err := c.Connect(ctx, &sdkmcp.CommandTransport{Command: server}, &sdkmcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("%s: %s", name, resultText(res))
		}
		return time.Since(t0)
	}
	pid := server.Process.Pid
	start := time.Now()
	call(ToolRecall, map[string]any{"query": "warm up the index"})
	warmRSS, warmHWM := procMemory(b, pid)
	b.Logf("%d memories: first recall %v, server rss %d MB (peak %d MB)", n, time.Since(start).Round(time.Millisecond), warmRSS, warmHWM)
	b.ResetTimer()
	var adds, recalls []time.Duration
	for i := range calls {
		if i%2 == 0 {
			adds = append(adds, call(ToolAdd, map[string]any{"text": fmt.Sprintf("Memory benchmark %d: the %s job needs a warm cache", i, benchWords[i%len(benchWords)])}))
		} else {
			recalls = append(recalls, call(ToolRecall, map[string]any{"query": benchWords[i%len(benchWords)] + " " + benchWords[(i*7)%len(benchWords)]}))
		}
	}
	b.StopTimer()
	settle(b, pid)
	rss, hwm := procMemory(b, pid)
	b.ReportMetric(float64(rss), "rss-MB")
	b.ReportMetric(float64(hwm), "hwm-MB")
	b.ReportMetric(float64(median(adds))/1e6, "add-ms-p50")
	b.ReportMetric(float64(median(recalls))/1e6, "recall-ms-p50")
	b.Logf("after %d calls: server rss %d MB (peak %d MB); memory_add p50 %v, memory_recall p50 %v",
		calls, rss, hwm, median(adds).Round(time.Microsecond), median(recalls).Round(time.Microsecond))
}

// settle waits until the process pid has been idle (no CPU time spent)
// for a quarter of a second, at most half a minute: what a server does
// after answering (a snapshot fold) is then done, and its resident memory
// is what it keeps, not what that work holds for a moment.
func settle(tb testing.TB, pid int) {
	last, idleSince := "", time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			tb.Fatal(err)
		}
		// the fields after the command's name: utime and stime are the 12th and 13th
		_, rest, _ := strings.Cut(string(data), ") ")
		f := strings.Fields(rest)
		if len(f) < 13 {
			tb.Fatalf("unexpected /proc/%d/stat: %q", pid, data)
		}
		cpu := f[11] + " " + f[12]
		if cpu != last {
			last, idleSince = cpu, time.Now()
		} else if time.Since(idleSince) >= 250*time.Millisecond {
			return
		}
	}
}

// procMemory reads a process's resident and peak resident memory in MB.
func procMemory(tb testing.TB, pid int) (rss, hwm int) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		switch k {
		case "VmRSS":
			rss = kb >> 10
		case "VmHWM":
			hwm = kb >> 10
		}
	}
	return rss, hwm
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
