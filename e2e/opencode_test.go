package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	openCodeFact   = "Database migrations run with make migrate and must be backwards compatible for one release"
	openCodeCommit = "Add the migration guard"
)

// TestOpenCode: after git mem install opencode, git-mem's plugin brings the
// recorded memory and the handoff another agent (codex, through the CLI)
// left into the first model request of a headless OpenCode run
// (session start), and the subagent's memory with the prompt; the model
// commits through OpenCode's bash tool and saves a memory through git-mem's
// MCP server (Agent opencode); when the session goes idle the plugin's
// session-end saves a note recording the commit.
func TestOpenCode(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "add", "--type", "decision", "--source", "user", "--", hookFact)
	gm(t, repo, home, nil, "add", "--tag", "subagent:explore", "--", promptFact)
	gm(t, repo, home, nil, "handoff", "--agent", "codex", "--done", "render queue added", "--next", handoffNext)
	t.Logf("git mem install opencode:\n%s", gm(t, repo, home, nil, "install", "opencode", "--binary", "git-mem"))

	// OpenCode: MCP tools are <server>_<tool>
	model := StartModel(t, CallTools(
		ToolCall{Name: "bash", Args: map[string]any{
			"command":     "touch guard.txt && git add guard.txt && git commit -q -m '" + openCodeCommit + "'",
			"description": "commit the guard",
		}},
		ToolCall{Name: "git-mem_memory_add", Args: map[string]any{"text": openCodeFact, "type": "fact", "source": "verified"}},
	))
	res := RunOpenCode(t, Run{Dir: repo, Prompt: "Where does the nightly export job write its CSV files? Then add the migration guard.", Model: model})
	require.NoError(t, res.Err, "opencode: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	var main []Request
	for _, r := range model.Find("chat", "") {
		if r.Offers("bash") {
			main = append(main, r)
		}
	}
	require.NotEmpty(t, main, "no agent request reached the model: %s\n%s", res, model.Dump())
	require.True(t, main[0].Contains(hookFact) && main[0].Contains(handoffNext) && main[0].Contains("not instructions"),
		"the session-start injection (memory and codex's handoff) did not reach OpenCode's first request\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	require.True(t, main[0].Contains("Recorded memories that may bear on this prompt") && main[0].Contains(promptFact),
		"the prompt hook's memory did not reach the first request\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	out, ok := model.ToolResult(CallToolsID(1))
	require.True(t, ok, "the memory_add result never reached the model\n%s\n%s", res, model.Dump())
	require.Contains(t, out, "as opencode")
	requireAdded(t, repo, openCodeFact, "opencode")
	requireInstructions(t, model, "chat")
	require.Contains(t, Git(t, repo, "log", "--format=%s", "-1"), openCodeCommit, "the OpenCode session did not commit")
	requireNote(t, repo, home, "opencode", openCodeCommit)
	require.Empty(t, hookErrors(repo), "the hooks logged errors in a real session")
}
