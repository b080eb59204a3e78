// Package e2e holds git-mem's end-to-end tests with real coding agents
// (Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0, Qwen Code 0.24.4,
// GitHub Copilot CLI 1.0.102 and OpenCode 1.18.33, installed from npm) run
// headless and offline against a loopback model stand-in. It has no
// library code: the harness lives in the package's test files so that every
// test file of the package can use it.
//
// # Harness (test files)
//
//   - main_test.go: TestMain builds git-mem, git-mem-hook and git-mem-mcp
//     once; GitMem is git-mem's path and GitMemDir (prepended to PATH of agent
//     runs) their directory. NewRepo makes
//     a repository with one commit; Git runs the git CLI.
//   - model_test.go: StartModel starts the stand-in on 127.0.0.1. It speaks the
//     Anthropic Messages API (POST /v1/messages, SSE streaming) and the OpenAI
//     Responses API (POST /v1/responses, SSE streaming), logs every request
//     (Model.Requests), and answers each from a Script. CallTools is the
//     usual script: call the given tools one after the other, each once its
//     predecessor's result came back, then end the turn. Request.ToolResults
//     and Request.Offers read what an agent sent.
//   - chat_model_test.go: the stand-in also speaks OpenAI Chat Completions
//     (POST …/chat/completions, SSE chunks ending in [DONE], API "chat"), the
//     API of Qwen Code's openai auth, OpenCode's openai-compatible provider
//     and the Copilot CLI's BYOK provider; tool results come back as "tool"
//     messages, so CallTools and ToolResults work unchanged.
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
//   - qwen_agent_test.go: Qwen and RunQwen (OPENAI_BASE_URL at the stand-in,
//     openai auth and no telemetry in the temp HOME's .qwen/settings.json).
//   - copilot_agent_test.go: Copilot and RunCopilot (COPILOT_OFFLINE, a BYOK
//     provider at the stand-in, the project folder trusted in the temp
//     HOME's .copilot/config.json).
//   - opencode_agent_test.go: OpenCode and RunOpenCode (the stand-in as an
//     openai-compatible provider in the user config, an empty models.dev
//     catalogue, and the stand-in as npm registry so the plugin-dependency
//     install OpenCode waits for fails at once).
//
// The tests of the later three (more_agents_test.go, opencode_test.go) run
// in parallel with each other (t.Parallel): each has its own repository,
// home and stand-in.
//
// Without npm (or node) the tests skip, except under CI=true, where they fail.
package e2e
