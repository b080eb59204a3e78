package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
)

var (
	binOnce                sync.Once
	binDir                 string
	binErr                 error
	gitMemBin, hookBinPath string
)

// buildBinaries builds git-mem and git-mem-hook once per test process.
func buildBinaries(t *testing.T) (gitMem, hookBin string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build the binaries")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "git-mem-bin-")
		if binErr != nil {
			return
		}
		gitMemBin, hookBinPath = filepath.Join(binDir, "git-mem"), filepath.Join(binDir, "git-mem-hook")
		for bin, pkg := range map[string]string{gitMemBin: "./cmd/git-mem", hookBinPath: "./cmd/git-mem-hook"} {
			cmd := exec.Command("go", "build", "-o", bin, pkg)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
				return
			}
		}
	})
	require.NoError(t, binErr)
	return gitMemBin, hookBinPath
}

func TestMain(m *testing.M) {
	if self := os.Getenv("GIT_MEM_TEST_START_WARM"); self != "" {
		startWarmAndExit(self)
	}
	if dir := os.Getenv("GIT_MEM_TEST_SIGNALS"); dir != "" {
		signalAndExit(dir)
		os.Exit(0)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// exe runs a binary with stdin and returns its stdout; a hook must exit 0.
func exe(t *testing.T, bin string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	require.NoError(t, err, "%s %v", bin, args)
	return string(out)
}

// copyRepo copies a repository directory (memories, ids and all).
func copyRepo(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	out, err := exec.Command("cp", "-a", dir, dst).CombinedOutput()
	require.NoError(t, err, string(out))
	return dst
}

// TestHookBinaryMatchesGitMem: for every agent and event of the fixtures,
// git-mem-hook prints exactly what git-mem hook prints, on two copies of
// the same repository, and leaves the same session note.
func TestHookBinaryMatchesGitMem(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	gitMem, hookBin := buildBinaries(t)
	isolate(t)
	for _, agent := range payloadAgents() {
		t.Run(agent, func(t *testing.T) {
			a := goldenRepo(t)
			b := copyRepo(t, a)
			files, err := filepath.Glob(filepath.Join(fixtureDir, agent, "*.json"))
			require.NoError(t, err)
			sort.Strings(files)
			step := func(dir, name string, full bool) string {
				stdin := strings.ReplaceAll(string(mustRead(t, filepath.Join(fixtureDir, agent, name+".json"))), "{{CWD}}", filepath.ToSlash(dir))
				event := name[strings.Index(name, "-")+1:]
				if full {
					return exe(t, gitMem, stdin, "hook", event, "--agent", agent)
				}
				return exe(t, hookBin, stdin, event, "--agent", agent)
			}
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				event := name[strings.Index(name, "-")+1:]
				switch event {
				case agents.EventStop:
					for i := 0; i < 5; i++ {
						require.Equal(t, step(a, "2-prompt", true), step(b, "2-prompt", false))
					}
				case agents.EventSessionEnd:
					for _, dir := range []string{a, b} {
						git(t, dir, "add", ".")
						git(t, dir, "commit", "-qm", "Verify refund webhooks against the raw body")
					}
				}
				want, got := step(a, name, true), step(b, name, false)
				if event == agents.EventSessionStart {
					require.NotEmpty(t, want, "%s %s injects something", agent, name)
				}
				require.Equal(t, want, got, "%s %s", agent, name)
			}
			notes := func(dir string) []string {
				ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
				require.NoError(t, err)
				var out []string
				for _, m := range ms {
					// the two copies' commits differ in time, hence in id
					out = append(out, normalize(m.Text))
				}
				return out
			}
			require.Len(t, notes(a), 1)
			require.Equal(t, notes(a), notes(b))
			for _, dir := range []string{a, b} {
				require.Empty(t, logText(t, dir), "no hook error")
			}
		})
	}
}

// TestHookBinaryWhileWriting: prompts answered by git-mem-hook while
// another process supersedes and forgets memories never fail and never
// show a memory that was superseded or forgotten before the prompt started;
// the snapshot they read is stale most of the time, so this exercises its
// bringing forward under concurrent writes.
func TestHookBinaryWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binary")
	}
	_, hookBin := buildBinaries(t)
	isolate(t)
	dir := newRepo(t, false)
	const n = 12
	var olds []seedMem
	for i := 0; i < n; i++ {
		olds = append(olds, seedMem{Text: fmt.Sprintf("The deploy window for service svc%02d is Tuesday morning", i)})
	}
	ids := seed(t, dir, append(olds, corpus(300)...)...)
	set := openSet(t, dir)
	st := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject)

	var mu sync.Mutex
	retired := map[string]time.Time{} // text -> when its retirement was committed
	done := make(chan struct{})
	// each write waits for a prompt to have run since the last one, so that
	// the prompts interleave with the writes however slow the machine is
	prompted := make(chan struct{}, 1)
	go func() {
		defer close(done)
		ctx := context.Background()
		for i := 0; i < n; i++ {
			select {
			case <-prompted:
			case <-time.After(10 * time.Second):
			}
			var err error
			if i%3 == 2 {
				_, err = st.Forget(ctx, gitstore.Writer{Agent: "writer"}, ids[i])
			} else {
				_, err = st.Add(ctx, gitstore.Writer{Agent: "writer"}, gitstore.NewMemory{
					Text: fmt.Sprintf("The deploy window for service svc%02d moved to Thursday evening", i), Supersedes: ids[i]})
			}
			if err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
			mu.Lock()
			retired[olds[i].Text] = time.Now()
			mu.Unlock()
			time.Sleep(60 * time.Millisecond)
		}
	}()
	prompts := 0
	for finished := false; !finished; prompts++ {
		select {
		case <-done:
			finished = true
		default:
		}
		i := prompts % n
		start := time.Now()
		stdin := payload("claude", "UserPromptSubmit", fmt.Sprintf("w%d", prompts), dir, map[string]any{"prompt": fmt.Sprintf("when is the deploy window for service svc%02d", i)})
		out := exe(t, hookBin, stdin, "prompt", "--agent", "claude")
		select {
		case prompted <- struct{}{}:
		default:
		}
		if out == "" {
			continue
		}
		var o struct {
			HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &o), out)
		mu.Lock()
		for text, at := range retired {
			if at.Before(start) {
				require.NotContains(t, o.HookSpecificOutput.AdditionalContext, text, "prompt %d shows a memory retired before it started", prompts)
			}
		}
		mu.Unlock()
	}
	require.Greater(t, prompts, 3)
	require.Empty(t, logText(t, dir), "no hook error")
	// once the writes are over, every answer is the current one
	for i := 0; i < n; i++ {
		stdin := payload("claude", "UserPromptSubmit", fmt.Sprintf("after%d", i), dir, map[string]any{"prompt": fmt.Sprintf("when is the deploy window for service svc%02d", i)})
		out := exe(t, hookBin, stdin, "prompt", "--agent", "claude")
		require.NotContains(t, out, olds[i].Text)
		if i%3 != 2 {
			require.Contains(t, out, fmt.Sprintf("svc%02d moved to Thursday evening", i))
		}
	}
}
