package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests of the agents added after the first three: Qwen Code and the GitHub
// Copilot CLI (and OpenCode, opencode_test.go), each after git mem install,
// run headless against the stand-in's Chat Completions API. Each test has
// its own repository and home and runs in parallel with the others.

// requireNote checks that exactly one session note was saved by agent, and
// that it records the commit subject.
func requireNote(t *testing.T, repo, home, agent, subject string) {
	t.Helper()
	ms := sessionNotes(t, repo, home, 1)
	var mine []string
	for _, m := range ms {
		if m.Agent == agent {
			mine = append(mine, m.Text)
		}
	}
	require.Len(t, mine, 1, "one session note by %s\nnotes: %+v\nhooks.log:\n%s", agent, ms, hooksLog(repo))
	require.Contains(t, mine[0], subject, "the %s session note does not record the commit", agent)
	t.Logf("%s session note:\n%s", agent, mine[0])
}

// requireAdded checks with the git CLI that a commit on refs/memory/main
// adds a memory holding text, written by agent (hooks may have committed
// session notes after it, so it need not be the newest).
func requireAdded(t *testing.T, repo, text, agent string) {
	t.Helper()
	for _, h := range strings.Fields(Git(t, repo, "log", "--format=%H", "refs/memory/main")) {
		msg := Git(t, repo, "log", "-1", "--format=%B", h)
		if !strings.Contains(msg, "Memory-Op: add") || !strings.Contains(msg, "Agent: "+agent+"\n") {
			continue
		}
		for _, l := range strings.Split(msg, "\n") {
			if id, ok := strings.CutPrefix(l, "Memory-Id: "); ok {
				id = strings.TrimSpace(id)
				blob := Git(t, repo, "show", h+":memories/"+id[:2]+"/"+id+".json")
				if strings.Contains(blob, text) {
					return
				}
			}
		}
	}
	t.Fatalf("no commit on refs/memory/main adds %q as %s:\n%s", text, agent, Git(t, repo, "log", "--format=%B", "refs/memory/main"))
}

// moreFacts are the memories of TestQwenThenCopilot: one written before the
// sessions (session start injects it), one a subagent's (only the prompt hook
// brings it), and one each agent saves through memory_add.
const (
	promptFact  = "The nightly export job writes CSV files to the exports bucket with gzip compression"
	qwenFact    = "Feature flags are read from config/flags.yaml at start-up and cached for the process lifetime"
	copilotFact = "The mobile API is versioned in the URL path and v1 is frozen since the March release"
	qwenCommit  = "Add the export queue"
	copilotNext = "document the frozen v1 mobile API in docs/api.md"
)

// TestQwenThenCopilot: after git mem install qwen and git mem install
// copilot, a headless Qwen Code session gets the recorded memory at session
// start and the subagent's memory with its prompt, commits through its shell
// tool, saves a memory (Agent qwen) and leaves a handoff through git-mem's
// MCP server, and its Stop hook saves a note recording the commit. The next
// session, a Copilot CLI one, gets the handoff and the memory in its first
// request, the prompt's memory, saves a memory as copilot and leaves a
// handoff of its own, and its SessionEnd hook saves its note.
func TestQwenThenCopilot(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "add", "--type", "decision", "--source", "user", "--", hookFact)
	gm(t, repo, home, nil, "add", "--tag", "subagent:explore", "--", promptFact)
	t.Logf("git mem install qwen:\n%s", gm(t, repo, home, nil, "install", "qwen", "--binary", "git-mem"))
	t.Logf("git mem install copilot:\n%s", gm(t, repo, home, nil, "install", "copilot", "--binary", "git-mem"))

	// Qwen Code: MCP tools are mcp__<server>__<tool>
	model := StartModel(t, CallTools(
		ToolCall{Name: "run_shell_command", Args: map[string]any{
			"command":     "touch export.txt && git add export.txt && git commit -q -m '" + qwenCommit + "'",
			"description": "commit the export queue",
		}},
		ToolCall{Name: "mcp__git-mem__memory_add", Args: map[string]any{"text": qwenFact, "type": "fact", "source": "verified"}},
		ToolCall{Name: "mcp__git-mem__memory_handoff", Args: map[string]any{"done": "export queue added", "next": handoffNext}},
	))
	res := RunQwen(t, Run{Dir: repo, Prompt: "Which bucket does the nightly export job write its CSV files to? Add the export queue.", Model: model,
		Args: []string{"--approval-mode", "yolo"}, Env: []string{"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}})
	require.NoError(t, res.Err, "qwen: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	chat := model.Find("chat", "")
	require.NotEmpty(t, chat, "no request reached the model: %s", res)
	require.True(t, chat[0].Contains(hookFact) && chat[0].Contains("not instructions"),
		"the session-start injection did not reach Qwen Code's first request\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	require.True(t, chat[0].Contains("qwen:user-prompt-submit-context") && chat[0].Contains(promptFact),
		"the prompt hook's memory did not reach the first request\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	out, ok := model.ToolResult(CallToolsID(1))
	require.True(t, ok, "the memory_add result never reached the model\n%s\n%s", res, model.Dump())
	require.Contains(t, out, "as qwen")
	requireAdded(t, repo, qwenFact, "qwen")
	requireInstructions(t, model, "chat")
	_, ok = model.ToolResult(CallToolsID(2))
	require.True(t, ok, "the handoff call never completed\n%s", model.Dump())
	require.Contains(t, Git(t, repo, "log", "--format=%s", "-1"), qwenCommit, "the Qwen Code session did not commit")
	requireNote(t, repo, home, "qwen", qwenCommit)

	// Copilot CLI: MCP tools are <server>-<tool>
	model = StartModel(t, CallTools(
		ToolCall{Name: "git-mem-memory_add", Args: map[string]any{"text": copilotFact, "type": "fact", "source": "verified"}},
		ToolCall{Name: "bash", Args: map[string]any{
			"command":     "touch api.txt && git add api.txt && git commit -q -m '" + commitSubject + "'",
			"description": "commit", "mode": "sync",
		}},
		ToolCall{Name: "git-mem-memory_handoff", Args: map[string]any{"done": "v1 frozen", "next": copilotNext}},
	))
	res = RunCopilot(t, Run{Dir: repo, Prompt: "Carry on; where does the nightly export job write its CSV files?", Model: model})
	require.NoError(t, res.Err, "copilot: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	chat = model.Find("chat", "")
	require.NotEmpty(t, chat, "no request reached the model: %s", res)
	require.True(t, chat[0].Contains(handoffNext) && chat[0].Contains(hookFact),
		"the first Copilot request lacks Qwen Code's handoff and the memory\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	require.True(t, chat[0].Contains("Recorded memories that may bear on this prompt"),
		"the prompt hook's context did not reach the first Copilot request\n%s", model.Dump())
	out, ok = model.ToolResult(CallToolsID(0))
	require.True(t, ok, "the memory_add result never reached the model\n%s\n%s", res, model.Dump())
	require.Contains(t, out, "as copilot")
	requireAdded(t, repo, copilotFact, "copilot")
	// the Copilot CLI does not pass MCP server instructions on; the block in
	// .github/copilot-instructions.md says the same
	require.NotEmpty(t, model.Find("chat", "Repository memory (git-mem)"), "the instruction block never reached the model\n%s", model.Dump())
	require.Contains(t, Git(t, repo, "log", "--format=%s", "-1"), commitSubject, "the Copilot session did not commit")
	requireNote(t, repo, home, "copilot", commitSubject)
	require.Empty(t, hookErrors(repo), "the hooks logged errors in real sessions")
	if !strings.Contains(gm(t, repo, home, nil, "list", "--type", "handoff", "--json"), copilotNext) {
		t.Fatalf("the Copilot handoff was not saved")
	}
}
