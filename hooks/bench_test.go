package hooks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// BenchmarkHookCost measures, at 10,000 memories, what the session-start and
// prompt hooks cost as processes started by an agent (payload on stdin,
// output read from stdout), run by git-mem and by git-mem-hook, against a
// no-op Go binary started the same way, interleaved in the same run. It
// reports the medians and their ratios; scripts/bench-hooks.sh runs it. The
// caches (start cache, index, snapshot) are warm, as they are after the
// first session in a repository.
func BenchmarkHookCost(b *testing.B) {
	tmp := b.TempDir()
	noop := buildForBench(b, tmp, "git-mem", "git-mem-hook")
	gitMem, hookBin := filepath.Join(tmp, "git-mem"), filepath.Join(tmp, "git-mem-hook")

	// isolate only after building: go needs the real HOME for its caches
	isolateB(b)
	dir := newRepo(b, false)
	seedBench(b, dir, 10000)
	git(b, dir, "checkout", "-qb", "feature/refund-ledger")
	warm := payload("claude", "SessionStart", "warm", dir, map[string]any{"source": "startup"})
	if _, err := spawn(gitMem, []string{"hook", "warm"}, warm); err != nil {
		b.Fatal(err)
	}
	requireBenchHit(b, dir, gitMem, "hook")
	requireBenchHit(b, dir, hookBin)

	// runs of each command: GIT_MEM_BENCH_RUNS (scripts/bench-hooks.sh sets
	// it and runs the benchmark once), else b.N, at least 10
	n := max(b.N, 10)
	if v, err := strconv.Atoi(os.Getenv("GIT_MEM_BENCH_RUNS")); err == nil && v > 0 {
		n = v
	}
	// GIT_MEM_BENCH_BASELINE names another git-mem-hook (an earlier
	// version, say) timed in the same run, in sessions of its own
	baseline := os.Getenv("GIT_MEM_BENCH_BASELINE")
	// on a copy of the repository of its own: an earlier version may keep
	// its caches in another layout, and two layouts in one directory would
	// rebuild each other's at every run
	baseDir := dir
	if baseline != "" {
		baseDir = filepath.Join(b.TempDir(), "baseline")
		if out, err := exec.Command("cp", "-a", dir, baseDir).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v %s", err, out)
		}
		// the copy's files have new inodes: its index records them again, so
		// that its worktree is as clean to a hook as the original's
		git(b, baseDir, "update-index", "-q", "--refresh")
		bwarm := payload("claude", "SessionStart", "warm", baseDir, map[string]any{"source": "startup"})
		if _, err := spawn(baseline, []string{"session-start", "--agent", "claude"}, bwarm); err != nil {
			b.Fatal(err)
		}
	}
	var tNoop, tBare, tStart, tPrompt, tHStart, tHPrompt, tBStart, tBPrompt []time.Duration
	b.ResetTimer()
	for i := 0; i < n; i++ {
		sid := benchSession(1, i)
		start := payload("claude", "SessionStart", sid, dir, map[string]any{"source": "startup"})
		prompt := payload("claude", "UserPromptSubmit", sid, dir, map[string]any{"prompt": benchPrompt})
		d, err := spawn(noop, nil, start)
		must(b, err)
		tNoop = append(tNoop, d)
		d, err = spawn(gitMem, []string{"hook", "session-start"}, "")
		must(b, err)
		tBare = append(tBare, d)
		d, err = spawn(gitMem, []string{"hook", "session-start", "--agent", "claude"}, start)
		must(b, err)
		tStart = append(tStart, d)
		d, err = spawn(gitMem, []string{"hook", "prompt", "--agent", "claude"}, prompt)
		must(b, err)
		tPrompt = append(tPrompt, d)
		// the hook binary, in sessions of its own (each memory is shown once per session)
		hsid := benchSession(2, i)
		start = payload("claude", "SessionStart", hsid, dir, map[string]any{"source": "startup"})
		prompt = payload("claude", "UserPromptSubmit", hsid, dir, map[string]any{"prompt": benchPrompt})
		d, err = spawn(hookBin, []string{"session-start", "--agent", "claude"}, start)
		must(b, err)
		tHStart = append(tHStart, d)
		d, err = spawn(hookBin, []string{"prompt", "--agent", "claude"}, prompt)
		must(b, err)
		tHPrompt = append(tHPrompt, d)
		if baseline == "" {
			continue
		}
		bsid := benchSession(3, i)
		start = payload("claude", "SessionStart", bsid, baseDir, map[string]any{"source": "startup"})
		prompt = payload("claude", "UserPromptSubmit", bsid, baseDir, map[string]any{"prompt": benchPrompt})
		d, err = spawn(baseline, []string{"session-start", "--agent", "claude"}, start)
		must(b, err)
		tBStart = append(tBStart, d)
		d, err = spawn(baseline, []string{"prompt", "--agent", "claude"}, prompt)
		must(b, err)
		tBPrompt = append(tBPrompt, d)
	}
	b.StopTimer()
	mn, mb, ms, mp := median(tNoop), median(tBare), median(tStart), median(tPrompt)
	hs, hp := median(tHStart), median(tHPrompt)
	b.ReportMetric(float64(mn.Microseconds())/1000, "noop-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(ms.Microseconds())/1000, "start-ms")
	b.ReportMetric(float64(mp.Microseconds())/1000, "prompt-ms")
	b.ReportMetric(float64(ms)/float64(mn), "start/noop")
	b.ReportMetric(float64(mp)/float64(mn), "prompt/noop")
	b.ReportMetric(float64(hs)/float64(mn), "hook-start/noop")
	b.ReportMetric(float64(hp)/float64(mn), "hook-prompt/noop")
	fmt.Fprintf(os.Stderr, "hook cost at 10,000 memories, median of %d runs each (interleaved):\n  no-op Go binary               %8.1f ms\n  git-mem started, empty stdin  %8.1f ms  (%.1fx no-op: process start and package init)\n  git-mem hook session-start    %8.1f ms  (%.1fx no-op)\n  git-mem hook prompt           %8.1f ms  (%.1fx no-op)\n  git-mem-hook session-start    %8.1f ms  (%.1fx no-op)\n  git-mem-hook prompt           %8.1f ms  (%.1fx no-op)\n",
		n, ms2(mn), ms2(mb), float64(mb)/float64(mn), ms2(ms), float64(ms)/float64(mn), ms2(mp), float64(mp)/float64(mn),
		ms2(hs), float64(hs)/float64(mn), ms2(hp), float64(hp)/float64(mn))
	if baseline != "" {
		bs, bp := median(tBStart), median(tBPrompt)
		fmt.Fprintf(os.Stderr, "  baseline session-start        %8.1f ms  (%.1fx no-op)\n  baseline prompt               %8.1f ms  (%.1fx no-op)\n",
			ms2(bs), float64(bs)/float64(mn), ms2(bp), float64(bp)/float64(mn))
	}
	if log := filepath.Join(dir, ".git", "mem", "hooks.log"); fileHas(log) {
		data, _ := os.ReadFile(log)
		fmt.Fprintf(os.Stderr, "hooks.log:\n%s", data)
	}
}

func ms2(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fileHas(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() > 0
}

// spawn runs a binary with stdin, reads its stdout, and times it.
func spawn(bin string, args []string, stdin string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	_, err := cmd.Output()
	return time.Since(start), err
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

func isolateB(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_AUTHOR_NAME", "Ada")
	b.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	b.Setenv("GIT_COMMITTER_NAME", "Ada")
	b.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
}

// seedBench seeds the store in dir with n varied memories written over the
// last 200 days, and benchMemory among them.
func seedBench(b *testing.B, dir string, n int) {
	b.Helper()
	mems := append(corpus(n), benchMemory)
	// the corpus is dated from the tests' fixed clock; the hooks read the
	// real one, by which its trust would have decayed
	since := time.Since(clock)
	for i := range mems {
		mems[i].Age -= since
	}
	seed(b, dir, mems...)
}

// benchMemory is the memory the benchmarks' prompt (benchPrompt) finds
// among the corpus's, so that the prompt hook is timed injecting, as an
// agent meets it: a prompt of the corpus's own words matches thousands of
// memories alike, and injects nothing.
var benchMemory = seedMem{
	Type:   gitstore.TypeCommand,
	Text:   "Before touching internal/payouts/settle.go, dry-run the nightly payout-sync job with `make payout-sync DRY_RUN=1`: it rewrites settlement rows in place",
	Source: gitstore.SourceUser,
	Paths:  []string{"internal/payouts/settle.go"},
	// older than many of the corpus's, and not about the benchmarks'
	// branch: a session start has not shown it already
	Age: 60 * 24 * time.Hour,
}

const benchPrompt = "the nightly payout-sync job is failing, how do I dry-run it?"

// requireBenchHit fails the benchmark unless a session's prompt hook
// injects benchMemory after its session-start hook, as the benchmarks time
// them: bin with args (before the event) in dir.
func requireBenchHit(b *testing.B, dir, bin string, args ...string) {
	b.Helper()
	// a session of its own, also in a copy of the store made after it
	sid := benchSession(4, int(time.Now().UnixNano()))
	run := func(event, payload string) string {
		cmd := exec.Command(bin, append(args, event, "--agent", "claude")...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(payload)
		out, err := cmd.Output()
		require.NoError(b, err)
		return string(out)
	}
	run("session-start", payload("claude", "SessionStart", sid, dir, map[string]any{"source": "startup"}))
	out := run("prompt", payload("claude", "UserPromptSubmit", sid, dir, map[string]any{"prompt": benchPrompt}))
	require.Contains(b, out, benchAnswer, "the benchmark's prompt should inject its memory")
}

// benchMissPrompt is a prompt of the corpus's own common words, as most
// prompts are to a store: it ties hundreds of memories and injects nothing.
const benchMissPrompt = "fix the flaky login test"

// requireBenchMiss fails the benchmark unless a session's prompt hook (bin
// in dir) injects nothing for benchMissPrompt, as the scale table times it.
func requireBenchMiss(b *testing.B, dir, bin string) {
	b.Helper()
	cmd := exec.Command(bin, "prompt", "--agent", "claude")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(payload("claude", "UserPromptSubmit", benchSession(7, int(time.Now().UnixNano())), dir, map[string]any{"prompt": benchMissPrompt}))
	out, err := cmd.Output()
	require.NoError(b, err)
	require.Empty(b, string(out), "the benchmark's prompt without an answer should inject nothing")
}

// benchAnswer is what shows that benchMemory was returned.
const benchAnswer = "make payout-sync DRY_RUN=1"

// requireRecallHit fails the benchmark unless git mem recall (bin) returns
// benchMemory for benchPrompt in dir, as the scale table times it.
func requireRecallHit(b *testing.B, dir, bin string) {
	b.Helper()
	cmd := exec.Command(bin, "recall", "--", benchPrompt)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(b, err)
	require.Contains(b, string(out), benchAnswer, "the benchmark's recall should return its memory")
}

// benchSession is a session id shaped as the agents send them (a UUID), one
// per kind of run and i, so that each timed start is a new session.
func benchSession(kind, i int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, uint64(i)&(1<<48-1))
}
