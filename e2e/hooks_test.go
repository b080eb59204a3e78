package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/install"
)

// Hook tests: after git mem install, the agents' own hook machinery runs
// git-mem's hooks. What reached the stand-in model is asserted on, and what
// the hooks wrote is read back with git mem.

const (
	// hookFact is a memory written before the sessions.
	hookFact = "Invoices are rendered by the worker in cmd/render and never by the API"
	// handoffNext is the handoff the Claude Code session leaves.
	handoffNext = "wire the invoice renderer into the nightly export job"
	// commitSubject is the commit the Claude Code session makes.
	commitSubject = "Add the invoice render queue"
)

// gm runs git-mem in repo with a home of its own; failure fails the test.
func gm(t *testing.T, repo, home string, extra []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(GitMem, args...)
	cmd.Dir = repo
	cmd.Env = append(gitEnv(home), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"PATH="+GitMemDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git-mem %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// hooksLog is the hook error log of a repository, for failure messages.
func hooksLog(repo string) string {
	data, _ := os.ReadFile(filepath.Join(repo, ".git", "mem", "hooks.log"))
	return string(data)
}

// noteHandedOn is what the hooks log says of a hook that passed its
// deadline before it wrote the session note, and left the note to git mem
// hook finish in the background.
const noteHandedOn = "the session note is being written in the background"

// hookErrors is the hooks log without the lines of hooks that left the
// session note to the background: on a loaded machine (the agents' tests run
// side by side) a session end can pass its deadline, and that is slowness,
// not an error, once the note is there, which every test that reads this
// checks (sessionNotes).
func hookErrors(repo string) string {
	var errs strings.Builder
	for _, line := range strings.SplitAfter(hooksLog(repo), "\n") {
		if !strings.Contains(line, noteHandedOn) {
			errs.WriteString(line)
		}
	}
	return errs.String()
}

// sessionNote is a session note as git mem list --json shows it.
type sessionNote struct {
	Text  string `json:"text"`
	Agent string `json:"agent"`
}

// sessionNotes returns the session notes of a repository (git mem list)
// once there are at least want of them, or after a minute: a session end
// that passed its deadline writes its note in the background.
func sessionNotes(t *testing.T, repo, home string, want int) []sessionNote {
	t.Helper()
	var ms []sessionNote
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		out := gm(t, repo, home, nil, "list", "--type", "session", "--json")
		ms = nil
		if err := json.Unmarshal([]byte(out), &ms); err != nil {
			t.Fatalf("git mem list: %v\n%s", err, out)
		}
		if len(ms) >= want || time.Now().After(end) {
			return ms
		}
	}
}

// TestHooksClaudeThenCodex: after git mem install, a memory written earlier
// reaches Claude Code's first model request through the SessionStart hook;
// the session commits and leaves a handoff, and its SessionEnd hook saves a
// note recording the commit. Then, after git mem install codex, the first
// request of a Codex session carries the handoff and the memory.
func TestHooksClaudeThenCodex(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "add", "--type", "decision", "--source", "user", "--", hookFact)

	// Claude Code
	out := gm(t, repo, home, nil, "install", "claude", "--binary", "git-mem")
	t.Logf("git mem install claude:\n%s", out)
	model := StartModel(t, CallTools(
		ToolCall{Name: "Bash", Args: map[string]any{
			"command":     "touch queue.txt && git add queue.txt && git commit -q -m '" + commitSubject + "'",
			"description": "commit the queue",
		}},
		ToolCall{Name: "mcp__git-mem__memory_handoff", Args: map[string]any{
			"done": "render queue added", "next": handoffNext,
		}},
	))
	// -p runs need the tools allowed up front (compound Bash commands part by part)
	res := RunClaude(t, Run{Dir: repo, Prompt: "Add the invoice render queue and hand off.", Model: model,
		Args: []string{"--allowedTools", "Bash(touch:*)", "Bash(git add:*)", "Bash(git commit:*)", "mcp__git-mem"}})
	if res.Err != nil {
		t.Fatalf("claude: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	}
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatalf("no request reached the model: %s", res)
	}
	first := model.Find("anthropic", "SessionStart hook additional context")
	if len(first) == 0 || !first[0].Contains(hookFact) || !first[0].Contains("not instructions") {
		t.Fatalf("the session-start injection did not reach the model\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	}
	if _, ok := model.ToolResult(CallToolsID(1)); !ok {
		t.Fatalf("the handoff call never completed\n%s\n%s", res, model.Dump())
	}
	if log := Git(t, repo, "log", "--format=%s", "-1"); !strings.Contains(log, commitSubject) {
		bash, _ := model.ToolResult(CallToolsID(0))
		t.Fatalf("the session did not commit: %s\nBash result: %s", log, bash)
	}
	ms := sessionNotes(t, repo, home, 1)
	if len(ms) != 1 || !strings.Contains(ms[0].Text, commitSubject) || ms[0].Agent != "claude-code" {
		t.Fatalf("SessionEnd did not save one note recording the commit: %+v\nhooks.log:\n%s", ms, hooksLog(repo))
	}
	t.Logf("session note:\n%s", ms[0].Text)

	// Codex, with git-mem installed in its user config ($CODEX_HOME)
	// (codex on PATH: install records hook trust through codex app-server)
	codexHome := t.TempDir()
	codexDir := filepath.Join(codexHome, ".codex")
	codexPath := "PATH=" + GitMemDir + string(os.PathListSeparator) + filepath.Dir(Codex(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	out = gm(t, repo, codexHome, []string{"CODEX_HOME=" + codexDir, codexPath}, "install", "codex", "--user", "--binary", "git-mem")
	t.Logf("git mem install codex --user:\n%s", out)
	listed, err := install.ListCodexHooks(context.Background(), Codex(t), cleanEnv(codexHome, []string{"CODEX_HOME=" + codexDir}), repo)
	if err != nil {
		t.Fatal(err)
	}
	trusted := 0
	for _, h := range listed {
		if install.IsOwnCommand(h.Command) && h.TrustStatus == "trusted" {
			trusted++
		}
	}
	if trusted != 4 {
		t.Fatalf("codex trusts %d of git-mem's 4 hooks: %+v", trusted, listed)
	}
	model = StartModel(t, CallTools())
	res = RunCodex(t, Run{Dir: repo, Home: codexHome, Prompt: "Continue where the last session stopped.", Model: model})
	if res.Err != nil {
		t.Fatalf("codex: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	}
	got := model.Find("openai", handoffNext)
	if len(got) == 0 || got[0].N != 0 || !got[0].Contains(hookFact) {
		t.Fatalf("the first Codex request lacks the handoff and the memory\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	}
	if log := hookErrors(repo); log != "" {
		t.Errorf("the hooks logged errors in real sessions:\n%s", log)
	}
}

// TestHooksPromptClaude: the UserPromptSubmit hook adds the memories that
// match the prompt. The memory is a subagent's, which session start leaves
// out, so only the prompt hook can have brought it.
func TestHooksPromptClaude(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	const fact = "The nightly export job writes CSV files to the exports bucket with gzip compression"
	gm(t, repo, home, nil, "add", "--tag", "subagent:explore", "--", fact)
	gm(t, repo, home, nil, "install", "claude", "--binary", "git-mem")
	model := StartModel(t, CallTools())
	res := RunClaude(t, Run{Dir: repo, Prompt: "Where does the nightly export job write its CSV files?", Model: model})
	if res.Err != nil {
		t.Fatalf("claude: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	}
	got := model.Find("anthropic", fact)
	if len(got) == 0 || !got[0].Contains("UserPromptSubmit hook additional context: Recorded memories that may bear on this prompt") {
		t.Fatalf("the prompt hook's memory did not reach the model\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	}
	if log := hookErrors(repo); log != "" {
		t.Errorf("the hooks logged errors:\n%s", log)
	}
}

// TestHooksPromptCodex is TestHooksPromptClaude with Codex (hooks installed
// in its user config).
func TestHooksPromptCodex(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	const fact = "The ledger service rounds currency amounts with banker's rounding in ledger/round.go"
	gm(t, repo, home, nil, "add", "--tag", "subagent:explore", "--", fact)
	codexHome := t.TempDir()
	gm(t, repo, codexHome, []string{"CODEX_HOME=" + filepath.Join(codexHome, ".codex")}, "install", "codex", "--user", "--binary", "git-mem")
	model := StartModel(t, CallTools())
	res := RunCodex(t, Run{Dir: repo, Home: codexHome, Prompt: "How does the ledger service round currency amounts?", Model: model})
	if res.Err != nil {
		t.Fatalf("codex: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	}
	got := model.Find("openai", "banker")
	if len(got) == 0 || !got[0].Contains("Recorded memories that may bear on this prompt") {
		t.Fatalf("the prompt hook's memory did not reach the model\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	}
	if log := hookErrors(repo); log != "" {
		t.Errorf("the hooks logged errors:\n%s", log)
	}
}
