package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Gemini CLI tests: after git mem install gemini, the CLI's own hook
// machinery and MCP client run git-mem, headless (gemini -p) against the
// Gemini stand-in. The model is named (-m) so the CLI skips its model router,
// whose classifier requests want JSON answers.

// geminiModelName is the model every run asks for.
const geminiModelName = "gemini-2.5-flash"

// geminiArgs are the arguments of a run: the model, and the tools the
// headless run may call without asking (-p runs leave out the tools that
// need confirmation, MCP tools included).
func geminiArgs(tools ...string) []string {
	args := []string{"-m", geminiModelName}
	if len(tools) > 0 {
		args = append(args, "--allowed-tools", strings.Join(tools, ","))
	}
	return args
}

// geminiMain returns the stand-in's main-model requests (streamed), in order.
func geminiMain(m *Model) []Request {
	var out []Request
	for _, r := range m.Requests() {
		if r.API == "gemini" && strings.HasSuffix(r.Path, ":streamGenerateContent") {
			out = append(out, r)
		}
	}
	return out
}

// TestHooksGemini: after git mem install gemini, a memory written earlier
// reaches the first model request of a headless Gemini CLI run through the
// SessionStart hook (prepended to the prompt inside <hook_context>); the
// session commits through the shell tool, and its SessionEnd hook saves a
// note recording the commit, written by gemini.
func TestHooksGemini(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "add", "--type", "decision", "--source", "user", "--", hookFact)
	out := gm(t, repo, home, nil, "install", "gemini", "--binary", "git-mem")
	t.Logf("git mem install gemini:\n%s", out)
	model := StartGeminiModel(t, GeminiCallTools(ToolCall{Name: "run_shell_command", Args: map[string]any{
		"command":     "touch queue.txt && git add queue.txt && git commit -q -m '" + commitSubject + "'",
		"description": "commit the queue",
	}}))
	res := RunGemini(t, Run{Dir: repo, Prompt: "Add the invoice render queue.", Model: model, Args: geminiArgs("run_shell_command")})
	require.NoError(t, res.Err, "gemini: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	main := geminiMain(model)
	require.NotEmpty(t, main, "no request reached the model: %s", res)
	first := main[0]
	require.True(t, first.Contains("<hook_context>Recorded memories of this repository") && first.Contains(hookFact) && first.Contains("not instructions"),
		"the session-start injection did not reach the first request\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	_, ok := model.GeminiToolResult(CallToolsID(0))
	require.True(t, ok, "the shell call never completed\n%s\n%s", res, model.Dump())
	require.Contains(t, Git(t, repo, "log", "--format=%s", "-1"), commitSubject, "the session did not commit")

	ms := sessionNotes(t, repo, home, 1)
	require.Len(t, ms, 1, "SessionEnd saves one note\nhooks.log:\n%s", hooksLog(repo))
	require.Contains(t, ms[0].Text, commitSubject)
	require.Equal(t, "gemini", ms[0].Agent)
	t.Logf("session note:\n%s", ms[0].Text)
	require.Empty(t, hookErrors(repo), "the hooks logged errors in a real session")
}

// TestHooksPromptGemini: the BeforeAgent hook adds the memories that match
// the prompt, appended to it inside <hook_context>. The memory is a
// subagent's, which session start leaves out, so only the prompt hook can
// have brought it.
func TestHooksPromptGemini(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	const fact = "The nightly export job writes CSV files to the exports bucket with gzip compression"
	gm(t, repo, home, nil, "add", "--tag", "subagent:explore", "--", fact)
	gm(t, repo, home, nil, "install", "gemini", "--binary", "git-mem")
	model := StartGeminiModel(t, GeminiCallTools())
	res := RunGemini(t, Run{Dir: repo, Prompt: "Where does the nightly export job write its CSV files?", Model: model, Args: geminiArgs()})
	require.NoError(t, res.Err, "gemini: %s\nhooks.log:\n%s\n%s", res, hooksLog(repo), model.Dump())
	got := model.Find("gemini", fact)
	require.NotEmpty(t, got, "the prompt hook's memory did not reach the model\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	require.True(t, got[0].Contains("<hook_context>Recorded memories that may bear on this prompt"), "not as the BeforeAgent context:\n%s", model.Dump())
	require.Empty(t, hookErrors(repo), "the hooks logged errors")
}

// geminiAdds runs the Gemini CLI, with git-mem's MCP server as git mem
// install gemini configured it, whose (stand-in) model calls memory_add
// (mcp_git-mem_memory_add), and checks the commit the git CLI sees.
func geminiAdds(t *testing.T, repo, text string) {
	t.Helper()
	const tool = "mcp_git-mem_memory_add"
	model := StartGeminiModel(t, GeminiCallTools(ToolCall{Name: tool, Args: map[string]any{"text": text, "type": "fact", "source": "verified"}}))
	res := RunGemini(t, Run{Dir: repo, Prompt: "Remember what we found out about this.", Model: model, Args: geminiArgs(tool)})
	require.NoError(t, res.Err, "gemini: %s\n%s", res, model.Dump())
	out, ok := model.GeminiToolResult(CallToolsID(0))
	require.True(t, ok, "the memory_add result never reached the model\n%s\n%s", res, model.Dump())
	t.Logf("memory_add result as the model got it:\n%s", out)
	require.Contains(t, out, "Saved")
	require.Contains(t, out, "as gemini")
	requireCommit(t, repo, text, "gemini")
	require.NotEmpty(t, model.Find("gemini", instructionsMark), "git-mem's server instructions never reached the model\n%s", model.Dump())
}

// geminiRecalls runs the Gemini CLI whose model calls memory_recall and
// checks that the memory came back in the functionResponse.
func geminiRecalls(t *testing.T, repo, query, want, author string) {
	t.Helper()
	const tool = "mcp_git-mem_memory_recall"
	model := StartGeminiModel(t, GeminiCallTools(ToolCall{Name: tool, Args: map[string]any{"query": query}}))
	res := RunGemini(t, Run{Dir: repo, Prompt: "What do we know about this?", Model: model, Args: geminiArgs(tool)})
	require.NoError(t, res.Err, "gemini: %s\n%s", res, model.Dump())
	out, ok := model.GeminiToolResult(CallToolsID(0))
	require.True(t, ok, "the memory_recall result never reached the model\n%s", model.Dump())
	t.Logf("memory_recall result as the model got it:\n%s", out)
	require.Contains(t, out, want)
	require.Contains(t, out, "via "+author)
	require.Contains(t, out, "evidence, not instructions")
}

// TestGeminiMCP: with the MCP server git mem install gemini configured, the
// Gemini CLI saves a memory (Agent trailer gemini), and a later run finds it
// with memory_recall.
func TestGeminiMCP(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "install", "gemini", "--binary", "git-mem")
	const fact = "The search index is rebuilt by make reindex and takes about ten minutes on CI"
	geminiAdds(t, repo, fact)
	geminiRecalls(t, repo, "how is the search index rebuilt", fact, "gemini")
}

// geminiLastTurn is the text of the last content of a Gemini request: the
// turn the user just sent, with the hook contexts the CLI added to it.
func geminiLastTurn(r Request) string {
	var body struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(r.Body, &body) != nil || len(body.Contents) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range body.Contents[len(body.Contents)-1].Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestHooksGeminiResume: gemini -r latest fires SessionStart with source
// "resume" in the same session, and the hook injects only what changed since
// the session's first injection.
func TestHooksGeminiResume(t *testing.T) {
	t.Parallel()
	repo := NewRepo(t)
	home := t.TempDir()
	gm(t, repo, home, nil, "add", "--type", "decision", "--source", "user", "--", hookFact)
	gm(t, repo, home, nil, "install", "gemini", "--binary", "git-mem")
	model := StartGeminiModel(t, GeminiCallTools())
	res := RunGemini(t, Run{Dir: repo, Home: home, Prompt: "Look around.", Model: model, Args: geminiArgs()})
	require.NoError(t, res.Err, "gemini: %s\n%s", res, model.Dump())
	main := geminiMain(model)
	require.Len(t, main, 1)
	require.Contains(t, geminiLastTurn(main[0]), hookFact)

	const later = "Deploys to staging need the VPN up first, or the helm upgrade times out"
	gm(t, repo, home, nil, "add", "--type", "gotcha", "--source", "user", "--", later)
	res = RunGemini(t, Run{Dir: repo, Home: home, Prompt: "Carry on.", Model: model, Args: append(geminiArgs(), "-r", "latest")})
	require.NoError(t, res.Err, "gemini -r latest: %s\n%s", res, model.Dump())
	main = geminiMain(model)
	require.Len(t, main, 2)
	turn := geminiLastTurn(main[1])
	require.Contains(t, turn, "<hook_context>Recorded memories of this repository", "no resume injection\nhooks.log:\n%s\n%s", hooksLog(repo), model.Dump())
	require.Contains(t, turn, later)
	require.NotContains(t, turn, hookFact, "on resume only what changed is injected")
	require.Empty(t, hookErrors(repo), "the hooks logged errors")
}
