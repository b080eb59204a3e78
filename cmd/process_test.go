package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// binary is the git-mem built once for the process-level tests (with
// git-mem-mcp beside it).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "git-mem-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "git-mem")
	// git mem mcp runs the MCP server's binary, installed beside git-mem
	if out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./git-mem", "./git-mem-mcp").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building git-mem and git-mem-mcp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandbox is an isolated HOME with a git repository in it.
type sandbox struct {
	t    *testing.T
	home string
	repo string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	home := t.TempDir()
	sb := &sandbox{t: t, home: home, repo: filepath.Join(home, "repo")}
	require.NoError(t, os.MkdirAll(sb.repo, 0o755))
	sb.git("init", "-q", "-b", "main")
	// judged once the gc below is done, and with the personal store
	gitstoretest.CheckedByGit(t, sb.repo)
	gitstoretest.CheckedByGit(t, filepath.Join(home, "data", "git-mem", "personal.git"))
	sb.git("config", "user.name", "Proc Test")
	sb.git("config", "user.email", "proc@example.com")
	// a write may have started git gc --auto in the background: the
	// directory goes once it is done (it holds gc.pid meanwhile)
	t.Cleanup(func() {
		pid := filepath.Join(sb.repo, ".git", "gc.pid")
		for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(pid); os.IsNotExist(err) {
				return
			}
		}
	})
	return sb
}

func (sb *sandbox) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_DATA_HOME" || k == "XDG_CONFIG_HOME" || k == "CLAUDECODE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+sb.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_DATA_HOME="+filepath.Join(sb.home, "data"))
}

func (sb *sandbox) git(args ...string) string {
	sb.t.Helper()
	c := exec.Command("git", append([]string{"-C", sb.repo}, args...)...)
	c.Env = sb.env()
	out, err := c.CombinedOutput()
	require.NoError(sb.t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// mem runs the binary in dir and returns stdout, stderr and the exit code.
func (sb *sandbox) memIn(dir string, args ...string) (string, string, int) {
	return sb.memEnv(dir, nil, args...)
}

// memEnv is memIn with more environment variables.
func (sb *sandbox) memEnv(dir string, env []string, args ...string) (string, string, int) {
	c := exec.Command(binary, args...)
	c.Dir = dir
	c.Env = append(sb.env(), env...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		sb.t.Fatalf("running git-mem: %v", err)
	}
	return out.String(), errb.String(), code
}

func (sb *sandbox) mem(args ...string) (string, string, int) { return sb.memIn(sb.repo, args...) }

func (sb *sandbox) memOK(args ...string) string {
	sb.t.Helper()
	out, errOut, code := sb.mem(args...)
	require.Equal(sb.t, 0, code, "git mem %s: %s", strings.Join(args, " "), errOut)
	return out
}

// memoryTexts lists the text of every memory on refs/memory/main, using git only.
func (sb *sandbox) memoryTexts() map[string]bool {
	sb.t.Helper()
	texts := map[string]bool{}
	tree := sb.git("ls-tree", "-r", "--format=%(objectname)", "refs/memory/main", "memories/")
	var ids bytes.Buffer
	for _, l := range strings.Fields(tree) {
		ids.WriteString(l + "\n")
	}
	c := exec.Command("git", "-C", sb.repo, "cat-file", "--batch=")
	c.Env = sb.env()
	c.Stdin = &ids
	out, err := c.Output()
	require.NoError(sb.t, err)
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var doc struct {
			Text string `json:"text"`
		}
		require.NoError(sb.t, dec.Decode(&doc))
		texts[doc.Text] = true
	}
	return texts
}

func TestConcurrentProcessWriters(t *testing.T) {
	for _, withGC := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "with pack-refs and gc"}[withGC], func(t *testing.T) {
			sb := newSandbox(t)
			sb.git("commit", "-q", "--allow-empty", "-m", "init")
			sb.git("config", "gc.auto", "50") // make gc --auto really repack during the run
			const procs, each = 8, 50
			ctx, cancel := context.WithCancel(context.Background())
			var gcRuns int
			var gcWG sync.WaitGroup
			if withGC {
				gcWG.Add(1)
				go func() {
					defer gcWG.Done()
					for ctx.Err() == nil {
						ran := true
						for _, args := range [][]string{{"pack-refs", "--all"}, {"gc", "--auto", "--quiet"}} {
							c := exec.Command("git", append([]string{"-C", sb.repo}, args...)...)
							c.Env = sb.env()
							out, err := c.CombinedOutput()
							if err != nil && bytes.Contains(out, []byte("gc.pid.lock")) {
								// the gc --auto a writer started in the background
								// holds git's gc lock: git refuses a second gc
								ran = false
								continue
							}
							if err != nil {
								t.Errorf("git %v: %v %s", args, err, out)
							}
						}
						if ran {
							gcRuns++
						}
					}
				}()
			}
			var wg sync.WaitGroup
			failures := make(chan string, procs*each)
			for p := 0; p < procs; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						_, errOut, code := sb.mem("add", "--agent", fmt.Sprintf("writer-%d", p), "--", fmt.Sprintf("memory %d from writer %d", i, p))
						if code != 0 {
							failures <- fmt.Sprintf("writer %d add %d: exit %d: %s", p, i, code, errOut)
						}
					}
				}(p)
			}
			wg.Wait()
			cancel()
			gcWG.Wait()
			close(failures)
			for f := range failures {
				t.Error(f)
			}
			texts := sb.memoryTexts()
			require.Equal(t, procs*each, len(texts), "memories on refs/memory/main")
			for p := 0; p < procs; p++ {
				for i := 0; i < each; i++ {
					require.True(t, texts[fmt.Sprintf("memory %d from writer %d", i, p)], "memory %d of writer %d lost", i, p)
				}
			}
			require.Equal(t, fmt.Sprint(procs*each), strings.TrimSpace(sb.git("rev-list", "--count", "refs/memory/main")))
			sb.git("fsck", "--strict")
			if withGC {
				t.Logf("pack-refs + gc --auto ran %d times during the writes", gcRuns)
				require.Greater(t, gcRuns, 0)
			}
		})
	}
}

var hexRef = regexp.MustCompile(`^[0-9a-f]{40}\n$`)

func TestWriterKilledAtRandomMoments(t *testing.T) {
	sb := newSandbox(t)
	// Kill at uniformly random moments across a whole add: measure how long
	// one takes (the median of three, so that one slow add on a busy
	// machine does not set the window)
	var took []time.Duration
	mustExist := []string{}
	for i := range 3 {
		text := fmt.Sprintf("memory %d before any kill", i)
		start := time.Now()
		sb.memOK("add", "--", text)
		took = append(took, time.Since(start))
		mustExist = append(mustExist, text)
	}
	slices.Sort(took)
	window := 2 * took[1]
	rng := rand.New(rand.NewPCG(1, 2))
	killed, streak := 0, 0
	for i := 0; i < 50; i++ {
		text := fmt.Sprintf("write %d under fire", i)
		c := exec.Command(binary, "add", "--", text)
		c.Dir = sb.repo
		c.Env = sb.env()
		require.NoError(t, c.Start())
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		_ = c.Process.Signal(syscall.SIGKILL)
		err := c.Wait()
		if err == nil {
			mustExist = append(mustExist, text)
			streak = 0
		} else {
			killed++
			streak++
		}
		// a machine that got busier since the measure slows every add:
		// ten kills in a row say the window no longer spans a whole one
		if streak == 10 {
			window, streak = 2*window, 0
		}
		// The ref is never torn, and the store always opens.
		if data, err := os.ReadFile(filepath.Join(sb.repo, ".git", "refs", "memory", "main")); err == nil {
			require.Regexp(t, hexRef, string(data), "torn ref after kill %d", i)
		}
		sb.git("cat-file", "-e", "refs/memory/main^{commit}")
		_, errOut, code := sb.mem("list", "--json")
		require.Equal(t, 0, code, "store does not open after kill %d: %s", i, errOut)
	}
	// A write after the storm succeeds, even if a killed writer left its lock behind.
	sb.memOK("add", "--", "the memory after the storm")
	mustExist = append(mustExist, "the memory after the storm")
	texts := sb.memoryTexts()
	for _, text := range mustExist {
		require.True(t, texts[text], "%q exited 0 but is missing", text)
	}
	sb.git("fsck", "--strict", "--no-dangling")
	completed := len(mustExist) - 4 // the three before the storm and the one after
	t.Logf("kill window %s: killed %d of 50 writers mid-run; %d completed and all are present", window, killed, completed)
	require.Greater(t, killed, 0, "the test must actually kill writers")
	require.Greater(t, completed, 0, "some writers must complete, or the window is wrong")
}

func TestPurgeLeavesNoReachableObject(t *testing.T) {
	sb := newSandbox(t)
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	sb.memOK("add", "--", "CI runs on GitHub Actions")
	secret := "the deploy key passphrase is purple-elephant-42"
	// The secret scanner refuses this text; the user overrode it, then regretted it.
	_, errOut, code := sb.mem("add", "--", secret)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "password assignment")
	id := strings.TrimSpace(sb.memOK("add", "--allow-secret", "--", secret))
	sb.memOK("revise", "--allow-secret", id, "--", secret+" (rotated monthly)")
	sb.memOK("add", "--", "Use pnpm, not npm")
	sb.git("pack-refs", "--all")
	// the caches hold the text too: the search index, the recall snapshot
	// and the start cache
	require.Contains(t, sb.memOK("recall", "--", "deploy key passphrase purple elephant"), "purple-elephant")
	sb.memOK("preview")
	// the MCP server's search index, which its recall builds
	res := sb.mcpCall(nil, "memory_recall", map[string]any{"query": "deploy key passphrase purple elephant"})
	require.Contains(t, fmt.Sprint(res["content"]), "purple-elephant")
	require.NotEmpty(t, filesHolding(t, filepath.Join(sb.repo, ".git", "mem", "index"), "purple-elephant"))
	require.NotEmpty(t, filesHolding(t, filepath.Join(sb.repo, ".git", "mem"), "purple-elephant"))

	out := sb.memOK("forget", "--purge", id)
	require.Contains(t, out, "verified: no object reachable")
	require.Empty(t, filesHolding(t, filepath.Join(sb.repo, ".git", "mem"), "purple-elephant"), "the purge scrubs the caches")
	require.Equal(t, "[]\n", sb.memOK("recall", "--json", "--", "deploy key passphrase purple elephant"))

	// Ask git directly: no reachable object holds the text.
	objs := sb.git("rev-list", "--objects", "--all")
	c := exec.Command("git", "-C", sb.repo, "cat-file", "--batch")
	c.Env = sb.env()
	var in bytes.Buffer
	for _, l := range strings.Split(objs, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			in.WriteString(f[0] + "\n")
		}
	}
	c.Stdin = &in
	all, err := c.Output()
	require.NoError(t, err)
	require.NotContains(t, string(all), "purple-elephant")
	require.Len(t, sb.memoryTexts(), 2)
	sb.git("fsck", "--strict")
	require.NotContains(t, sb.git("log", "--format=%B", "refs/memory/main"), "purple-elephant")
	require.Contains(t, sb.git("config", "--get-all", "mem.purged"), id, "recorded so that a pull never brings it back")
}

// filesHolding lists the files under dir whose bytes contain s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(data, []byte(s)) {
			out = append(out, p)
		}
		return nil
	}))
	return out
}

func TestLinkedWorktreeSharesMemory(t *testing.T) {
	sb := newSandbox(t)
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(sb.home, "wt")
	sb.git("worktree", "add", "-q", "-b", "feature", wt)
	out, errOut, code := sb.memIn(wt, "add", "--type", "gotcha", "--", "written in the feature worktree")
	require.Equal(t, 0, code, errOut)
	id := strings.TrimSpace(out)
	shown := sb.memOK("show", "--json", id)
	var m struct {
		Text   string `json:"text"`
		Anchor struct {
			Branch string `json:"branch"`
		} `json:"anchor"`
	}
	require.NoError(t, json.Unmarshal([]byte(shown), &m))
	require.Equal(t, "written in the feature worktree", m.Text)
	require.Equal(t, "feature", m.Anchor.Branch)
}

// TestRefusedWriterNames: the writer's names reach every commit, so a
// credential or an escape sequence in --agent, GIT_MEM_AGENT, git config
// mem.agent or GIT_MEM_SESSION refuses the write with exit 1, says where
// the name comes from, offers no --allow-secret (it cannot help), and
// writes nothing.
func TestRefusedWriterNames(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	for _, tc := range []struct {
		name   string
		config string
		env    []string
		args   []string
	}{
		{name: "flag", args: []string{"--agent", token}},
		{name: "variable", env: []string{"GIT_MEM_AGENT=" + token}},
		{name: "config", config: token},
		{name: "session", env: []string{"GIT_MEM_SESSION=s\x1b[31m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			id := strings.TrimSpace(sb.memOK("add", "--", "the deploy script is scripts/deploy.sh"))
			if tc.config != "" {
				sb.git("config", "mem.agent", tc.config)
			}
			args := []string{"add", "--", "the build runs in CI only"}
			if tc.args != nil {
				args = append(append([]string{"forget"}, tc.args...), id)
			}
			before := sb.memoryTexts()
			_, errOut, code := sb.memEnv(sb.repo, tc.env, args...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "the writer's name is refused")
			require.Contains(t, errOut, "GIT_MEM_AGENT or git config mem.agent")
			require.NotContains(t, errOut, "--allow-secret")
			require.NotContains(t, errOut, token)
			require.Equal(t, before, sb.memoryTexts(), "nothing was written")
		})
	}
}
