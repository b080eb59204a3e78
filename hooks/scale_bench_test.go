package hooks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkScale measures what git-mem's everyday commands cost at 1,000,
// 10,000 and 100,000 memories (GIT_MEM_BENCH_SIZES), as processes started
// the way a user or an agent starts them, each as a ratio to a no-op Go
// binary started in the same interleaved run: git mem add, the
// session-start and prompt hooks (git-mem-hook), git mem recall, stats and
// list --limit 20 (a version without --limit: list); then one git mem reindex (time and peak memory) and the
// loose objects left. scripts/bench.sh runs it and writes the table the
// README quotes.
//
// With GIT_MEM_BENCH_BASELINE=DIR (a directory holding git-mem and
// git-mem-hook built from another version) the same commands of that
// version are timed in the same run, on a copy of each store of their own.
// GIT_MEM_BENCH_RUNS sets the runs per command (default 30);
// GIT_MEM_BENCH_OUT a file the markdown table is written to.
func BenchmarkScale(b *testing.B) {
	tmp := b.TempDir()
	cur := filepath.Join(tmp, "current")
	noop := buildForBench(b, cur, "git-mem", "git-mem-hook")
	peak := buildMain(b, "peak", peakSource)
	isolateB(b)

	versions := []string{cur}
	if base := os.Getenv("GIT_MEM_BENCH_BASELINE"); base != "" {
		versions = append(versions, base)
	}
	runs := 30
	if v, err := strconv.Atoi(os.Getenv("GIT_MEM_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	sizes := []int{1000, 10000, 100000}
	if v := os.Getenv("GIT_MEM_BENCH_SIZES"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			must(b, err)
			sizes = append(sizes, n)
		}
	}
	// a version released before list had --limit lists everything
	limited := make([]bool, len(versions))
	for v, bin := range versions {
		help, _ := exec.Command(filepath.Join(bin, "git-mem"), "list", "--help").CombinedOutput()
		limited[v] = strings.Contains(string(help), "--limit")
	}
	ops := []string{"add", "session-start", "prompt", "recall", "stats", "list --limit 20"}
	var table strings.Builder
	table.WriteString("| version | memories | no-op | " + strings.Join(ops, " | ") + " | reindex | loose objects |\n")
	table.WriteString("|---|---|---|" + strings.Repeat("---|", len(ops)) + "---|---|\n")
	b.ResetTimer()
	for _, size := range sizes {
		start := time.Now()
		seeded := newRepo(b, false)
		seedBench(b, seeded, size)
		git(b, seeded, "checkout", "-qb", "feature/refund-ledger")
		fmt.Fprintf(os.Stderr, "seeded %d memories in %v\n", size, time.Since(start).Round(time.Millisecond))
		dirs := make([]string, len(versions))
		for v, bin := range versions {
			dirs[v] = seeded
			if v > 0 {
				dirs[v] = filepath.Join(b.TempDir(), "copy")
				out, err := exec.Command("cp", "-a", seeded, dirs[v]).CombinedOutput()
				if err != nil {
					b.Fatalf("cp: %v %s", err, out)
				}
				// the copy's files have new inodes: its index records them again, so
				// that its worktree is as clean to a hook as the original's
				git(b, dirs[v], "update-index", "-q", "--refresh")
			}
			// the first session warms the caches (index, snapshot, start cache)
			start = time.Now()
			warm := payload("claude", "SessionStart", "warm", dirs[v], map[string]any{"source": "startup"})
			if _, err := spawnIn(dirs[v], filepath.Join(bin, "git-mem"), []string{"hook", "warm"}, warm); err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(os.Stderr, "warmed %s at %d in %v\n", label(v), size, time.Since(start).Round(time.Millisecond))
			requireBenchHit(b, dirs[v], filepath.Join(bin, "git-mem-hook"))
			requireRecallHit(b, dirs[v], filepath.Join(bin, "git-mem"))
		}
		// a warmed store kept for profiling a command by hand
		if keep := os.Getenv("GIT_MEM_BENCH_KEEP"); keep != "" {
			kept := filepath.Join(keep, strconv.Itoa(size))
			if out, err := exec.Command("cp", "-a", seeded, kept).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v %s", err, out)
			}
			fmt.Fprintf(os.Stderr, "kept a copy in %s\n", kept)
		}
		times := make([]map[string][]time.Duration, len(versions))
		for v := range versions {
			times[v] = map[string][]time.Duration{}
		}
		var tNoop []time.Duration
		for i := 0; i < runs; i++ {
			d, err := spawnIn(seeded, noop, nil, "{}")
			must(b, err)
			tNoop = append(tNoop, d)
			for k := range versions {
				// the versions take turns at going first, so that neither
				// always finds the page cache and the CPU as the other left
				// them
				v := k
				if i%2 == 1 {
					v = len(versions) - 1 - k
				}
				bin, dir := versions[v], dirs[v]
				sid := fmt.Sprintf("bench-%d", i)
				steps := []struct {
					op, bin string
					args    []string
					stdin   string
				}{
					{"add", "git-mem", []string{"add", "--", fmt.Sprintf("Bench note %d: the refund ledger batch %d settles at %02d:%02d UTC", i, i*7919%100000, i%24, i%60)}, ""},
					{"session-start", "git-mem-hook", []string{"session-start", "--agent", "claude"}, payload("claude", "SessionStart", sid, dir, map[string]any{"source": "startup"})},
					{"prompt", "git-mem-hook", []string{"prompt", "--agent", "claude"}, payload("claude", "UserPromptSubmit", sid, dir, map[string]any{"prompt": benchPrompt})},
					{"recall", "git-mem", []string{"recall", "--", benchPrompt}, ""},
					{"stats", "git-mem", []string{"stats"}, ""},
					{"list --limit 20", "git-mem", []string{"list", "--limit", "20"}, ""},
				}
				if !limited[v] {
					steps[len(steps)-1].args = []string{"list"} // everything
				}
				for _, s := range steps {
					d, err := spawnIn(dir, filepath.Join(bin, s.bin), s.args, s.stdin)
					if err != nil {
						b.Fatalf("%s %s: %v", label(v), s.op, err)
					}
					times[v][s.op] = append(times[v][s.op], d)
				}
			}
		}
		mn := median(tNoop)
		for v, bin := range versions {
			row := fmt.Sprintf("| %s | %d | %.1f ms |", label(v), size, ms2(mn))
			for _, op := range ops {
				m := median(times[v][op])
				row += fmt.Sprintf(" %.1f ms (%.1f×) |", ms2(m), float64(m)/float64(mn))
			}
			d, kb := peakOf(b, dirs[v], peak, filepath.Join(bin, "git-mem"), "reindex")
			row += fmt.Sprintf(" %.1f s, %d MB |", d.Seconds(), kb>>10)
			row += fmt.Sprintf(" %d |\n", looseObjects(dirs[v]))
			table.WriteString(row)
			fmt.Fprint(os.Stderr, row)
		}
	}
	b.StopTimer()
	fmt.Fprintf(os.Stderr, "\nmedians of %d interleaved runs each; ratios to the no-op of the same run\n%s", runs, table.String())
	if out := os.Getenv("GIT_MEM_BENCH_OUT"); out != "" {
		head := fmt.Sprintf("Written by scripts/bench.sh: medians of %d interleaved runs per command; "+
			"each ratio is to a no-op Go binary started the same way in the same run.\n\n", runs)
		must(b, os.WriteFile(out, []byte(head+table.String()), 0o644))
	}
}

func label(v int) string {
	if v == 0 {
		return "current"
	}
	return "baseline"
}

// spawnIn runs a binary in dir with stdin, reads its stdout, and returns the
// time it took.
func spawnIn(dir, bin string, args []string, stdin string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return d, fmt.Errorf("%s %v: %w: %s%s", filepath.Base(bin), args, err, out, stderr)
	}
	return d, nil
}

// peakOf runs bin with args in dir through the peak command and returns
// the time it took and its peak resident memory in kilobytes.
func peakOf(b *testing.B, dir, peak, bin string, args ...string) (time.Duration, int64) {
	b.Helper()
	out := filepath.Join(b.TempDir(), "peak")
	b.Setenv("PEAK_OUT", out)
	d, err := spawnIn(dir, peak, append([]string{bin}, args...), "")
	must(b, err)
	data, err := os.ReadFile(out)
	must(b, err)
	kb, err := strconv.ParseInt(string(data), 10, 64)
	must(b, err)
	return d, kb
}

// looseObjects counts the loose objects of the repository in dir.
func looseObjects(dir string) int {
	n := 0
	fans, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "[0-9a-f][0-9a-f]"))
	for _, f := range fans {
		entries, _ := os.ReadDir(f)
		n += len(entries)
	}
	return n
}
