//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol but still sent by the clients git-mem serves; the server follows them until clients stop (the SDK keeps them for at least twelve months).

package mcp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-mem/git-mem/gitstore"
)

// benchWords make the seeded memories read like a project's notes, so that
// recall has realistic postings to rank.
var benchWords = strings.Fields(`billing stripe webhook refund invoice retry backoff postgres migration index
query cache redis session cookie auth login token jwt admin role permission deploy fly docker compose
ci pipeline lint test flaky race timeout config env secret vault logging tracing metrics alert queue
worker cron email template i18n locale timezone utc booking calendar search pagination api graphql
rest grpc proto schema validation error handler middleware router frontend react component state
store build vite bundle asset image upload s3 bucket cdn feature flag rollout experiment`)

// seedMemories writes n memories to the project store of dir in one commit.
func seedMemories(tb testing.TB, dir string, n int) {
	tb.Helper()
	r, err := gitstore.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	st := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject)
	rng := rand.New(rand.NewPCG(1, 2))
	types := []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeGotcha, gitstore.TypeConvention, gitstore.TypeCommand}
	_, err = st.Update(context.Background(), gitstore.Writer{Agent: "bench"}, func(tx *gitstore.Tx) error {
		for i := range n {
			var words []string
			for range 12 + rng.IntN(12) {
				words = append(words, benchWords[rng.IntN(len(benchWords))])
			}
			id := gitstore.NewID()
			tx.Put(&gitstore.Memory{Schema: gitstore.SchemaVersion, ID: id, Type: types[i%len(types)],
				Text:   fmt.Sprintf("Note %d: %s.", i, strings.Join(words, " ")),
				Source: gitstore.SourceVerified, Trust: 0.75, Agent: "bench",
				Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
			tx.Describe(gitstore.OpAdd, "seed", id)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkToolCall measures tool-call latency at 10,000 memories: the built
// binary serves stdio connections as agents run it, one per protocol
// generation, and each call's round trip is timed. It reports the median and the 90th percentile (ms-p50, ms-p90)
// next to the mean (ns/op). The first recall, which builds the index, is not
// counted.
func BenchmarkToolCall(b *testing.B) {
	const n = 10000
	dir := newRepo(b)
	seedMemories(b, dir, n)
	ctx := context.Background()
	type conn struct {
		name string
		cs   *sdkmcp.ClientSession
	}
	var conns []conn
	// 2025-11-25: one round trip per call (Codex speaks 2025-06-18);
	// 2026-07-28: the roots come as input responses, two round trips per
	// call (Claude Code 2.1.328 speaks it).
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		server := exec.Command(binary, "mcp")
		server.Dir = dir
		c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "bench", Version: "1"}, nil)
		c.AddRoots(&sdkmcp.Root{URI: fileURI(dir)})
		cs, err := c.Connect(ctx, &sdkmcp.CommandTransport{Command: server}, &sdkmcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		conns = append(conns, conn{"protocol=" + version, cs})
	}
	call := func(tb testing.TB, cs *sdkmcp.ClientSession, name string, args map[string]any) {
		res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			tb.Fatal(err)
		}
		if res.IsError {
			tb.Fatalf("%s: %s", name, resultText(res))
		}
	}
	start := time.Now()
	call(b, conns[0].cs, ToolRecall, map[string]any{"query": "warm up the index"})
	b.Logf("first recall at %d memories (index built): %v", n, time.Since(start))

	queries := []string{
		"stripe webhook retry backoff", "postgres migration index timeout", "flaky race test in ci pipeline",
		"jwt token auth login cookie", "docker compose deploy fly", "timezone utc booking calendar",
		"redis cache session", "graphql schema validation error", "s3 bucket upload cdn", "feature flag rollout experiment",
	}
	for _, bc := range []struct {
		name string
		args func(i int) map[string]any
		tool string
	}{
		{"memory_recall", func(i int) map[string]any { return map[string]any{"query": queries[i%len(queries)]} }, ToolRecall},
		{"memory_add", func(i int) map[string]any {
			return map[string]any{"text": fmt.Sprintf("Benchmark learning %d: the %s job needs a warm cache", i, benchWords[i%len(benchWords)])}
		}, ToolAdd},
	} {
		for _, cn := range conns {
			b.Run(fmt.Sprintf("%s/n=%d/%s", bc.name, n, cn.name), func(b *testing.B) {
				var d []time.Duration
				for i := 0; b.Loop(); i++ {
					t0 := time.Now()
					call(b, cn.cs, bc.tool, bc.args(i))
					d = append(d, time.Since(t0))
				}
				slices.Sort(d)
				b.ReportMetric(float64(d[len(d)/2])/1e6, "ms-p50")
				b.ReportMetric(float64(d[len(d)*9/10])/1e6, "ms-p90")
				b.ReportMetric(float64(len(d)), "calls")
			})
		}
	}
}
