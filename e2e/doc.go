// Package e2e holds git-mem's end-to-end tests with real coding agents
// (Claude Code 2.1.328, Codex 0.169.0 and Gemini CLI 0.61.0, installed from
// npm) run headless and offline against a loopback model stand-in. It has no
// library code: the harness lives in the package's test files so that every
// test file of the package can use it.
//
// # Harness (test files)
//
//   - main_test.go: TestMain builds git-mem once; GitMem is its path and
//     GitMemDir (prepended to PATH of agent runs) its directory. NewRepo makes
//     a repository with one commit; Git runs the git CLI.
//   - model_test.go: StartModel starts the stand-in on 127.0.0.1. It speaks the
//     Anthropic Messages API (POST /v1/messages, SSE streaming) and the OpenAI
//     Responses API (POST /v1/responses, SSE streaming), logs every request
//     (Model.Requests), and answers each from a Script. CallTools is the
//     usual script: call the given tools one after the other, each once its
//     predecessor's result came back, then end the turn. Request.ToolResults
//     and Request.Offers read what an agent sent.
//   - gemini_model_test.go: StartGeminiModel starts a stand-in for the
//     Generative Language API as the Gemini CLI calls it
//     (POST /v1beta/models/<model>:streamGenerateContent?alt=sse,
//     :generateContent, :countTokens), logging into the same Model;
//     GeminiCallTools, GeminiToolResults and Model.GeminiToolResult are the
//     Gemini forms of CallTools and ToolResults (functionCall and
//     functionResponse parts).
//   - agents_test.go: Claude and Codex install the pinned npm packages once
//     into a cache (GIT_MEM_E2E_AGENTS, else e2e/.agents, the layout .ci/run
//     uses) and run them headless exactly as docs/agents.md describes,
//     with a clean environment (HOME in a temp dir, the stand-in as the model
//     API, no telemetry), stdin from /dev/null and a bounded time.
//     ClaudeMCP and CodexMCP write the agents' MCP configuration for git-mem.
//   - gemini_agent_test.go: Gemini and RunGemini, the same for the Gemini CLI
//     (GOOGLE_GEMINI_BASE_URL at the stand-in, a dummy GEMINI_API_KEY, user
//     settings in the temp HOME with telemetry, usage statistics, update
//     checks and folder trust off).
//
// Without npm (or node) the tests skip, except under CI=true, where they fail.
package e2e
