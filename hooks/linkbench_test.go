package hooks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// BenchmarkHookCostLinked times the session-start and prompt hooks of one
// project of 10,000 memories without a linked store and with one of
// 10,000 memories more (git mem link), interleaved in one run, and reports
// the ratio: a linked store is read from its local copy through the same
// recall snapshot and start cache, and a hook never fetches it.
//
//	scripts/bench-hooks.sh --linked [RUNS]
func BenchmarkHookCostLinked(b *testing.B) {
	tmp := b.TempDir()
	buildForBench(b, tmp, "git-mem", "git-mem-hook")
	gitMem, hookBin := filepath.Join(tmp, "git-mem"), filepath.Join(tmp, "git-mem-hook")
	isolateB(b)
	b.Setenv("XDG_CACHE_HOME", filepath.Join(os.Getenv("HOME"), "cache"))

	plain := newRepo(b, false)
	seedBench(b, plain, 10000)
	git(b, plain, "checkout", "-qb", "feature/refund-ledger")

	// the org store: 10,000 other memories on a bare remote
	orgSrc := newRepo(b, true)
	mems := corpus(10000)
	for i := range mems {
		mems[i].Text = "Across the org: " + mems[i].Text
		mems[i].Age -= time.Since(clock)
	}
	seed(b, orgSrc, mems...)
	// the seed is one commit naming its 10,000 memories in its message; an
	// org store's tip is an ordinary commit of one change, as here
	set := openSet(b, orgSrc)
	_, err := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject).Add(context.Background(), gitstore.Writer{Agent: "cli"},
		gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The org's release calendar lives in the ops handbook", Source: gitstore.SourceUser})
	must(b, err)
	org := filepath.Join(b.TempDir(), "org.git")
	git(b, orgSrc, "init", "-q", "--bare", org)
	git(b, orgSrc, "push", "-q", org, "refs/memory/main:refs/memory/main")

	linked := filepath.Join(b.TempDir(), "linked")
	if out, err := exec.Command("cp", "-a", plain, linked).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
	git(b, linked, "update-index", "-q", "--refresh")
	link := exec.Command(gitMem, "link", "acme", org)
	link.Dir = linked
	if out, err := link.CombinedOutput(); err != nil {
		b.Fatalf("git mem link: %v %s", err, out)
	}
	for _, dir := range []string{plain, linked} {
		warm := payload("claude", "SessionStart", "warm", dir, map[string]any{"source": "startup"})
		if _, err := spawn(gitMem, []string{"hook", "warm"}, warm); err != nil {
			b.Fatal(err)
		}
		requireBenchHit(b, dir, hookBin)
	}

	n := max(b.N, 10)
	if v, err := strconv.Atoi(os.Getenv("GIT_MEM_BENCH_RUNS")); err == nil && v > 0 {
		n = v
	}
	var pStart, pPrompt, lStart, lPrompt []time.Duration
	b.ResetTimer()
	for i := 0; i < n; i++ {
		for _, run := range []struct {
			dir           string
			start, prompt *[]time.Duration
		}{{plain, &pStart, &pPrompt}, {linked, &lStart, &lPrompt}} {
			sid := benchSession(6, i)
			d, err := spawn(hookBin, []string{"session-start", "--agent", "claude"}, payload("claude", "SessionStart", sid, run.dir, map[string]any{"source": "startup"}))
			must(b, err)
			*run.start = append(*run.start, d)
			d, err = spawn(hookBin, []string{"prompt", "--agent", "claude"}, payload("claude", "UserPromptSubmit", sid, run.dir, map[string]any{"prompt": benchPrompt}))
			must(b, err)
			*run.prompt = append(*run.prompt, d)
		}
	}
	b.StopTimer()
	ps, pp, ls, lp := median(pStart), median(pPrompt), median(lStart), median(lPrompt)
	b.ReportMetric(float64(ls)/float64(ps), "linked/plain-start")
	b.ReportMetric(float64(lp)/float64(pp), "linked/plain-prompt")
	fmt.Fprintf(os.Stderr, "git-mem-hook at 10,000 project memories, median of %d runs each (interleaved):\n  session-start            %8.1f ms\n  session-start, linked    %8.1f ms  (%.2fx: a linked store of 10,000 memories)\n  prompt                   %8.1f ms\n  prompt, linked           %8.1f ms  (%.2fx)\n",
		n, ms2(ps), ms2(ls), float64(ls)/float64(ps), ms2(pp), ms2(lp), float64(lp)/float64(pp))
	for _, dir := range []string{plain, linked} {
		if log := filepath.Join(dir, ".git", "mem", "hooks.log"); fileHas(log) {
			data, _ := os.ReadFile(log)
			fmt.Fprintf(os.Stderr, "hooks.log of %s:\n%s", filepath.Base(dir), data)
		}
	}
}
