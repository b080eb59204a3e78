// Package mcp is git-mem's Model Context Protocol server: every memory
// operation, for any MCP client, over the same engine as the CLI and the
// hooks. It is the only package that imports the MCP SDK
// (github.com/modelcontextprotocol/go-sdk, imported as sdkmcp).
//
// # Scope
//
// No tool takes a repository, scope or store path, so a model cannot be
// argued into another project's memory. A session serves the repository of
// the client's first root that lies inside a git repository, else the
// server's working directory. Clients on protocol versions before 2026-07-28
// are asked with roots/list on their first call and again after
// notifications/roots/list_changed; from 2026-07-28 on (Claude Code 2.1.328
// speaks it) there are no server-initiated requests, so each call is first
// answered with an input request for the roots and the client repeats it
// with them. Outside any repository the server serves the personal store,
// and memory_stats says so.
//
// # Writer
//
// Every write records the agent that made it: the --agent flag or
// GIT_MEM_AGENT when set (Options.Agent), else the client's clientInfo.name
// from the initialize request, normalized (claude-code, codex, cursor,
// gemini, …; see agents.FromClientName). A session id the client sends in a call's
// _meta (Codex sends sessionId) is recorded as the write's session.
//
// # Results
//
// Every tool answers with a compact text and structured content (typed
// outputs, schemas from the Go types). Claude Code 2.1.328 and Codex 0.169.0
// show the model only the structured content, so each structured output also
// carries the text in its text field, and lists (memory_recall, memory_list)
// keep each memory's text only there, within the budget. memory_add dedupes
// like git mem add (index.Remember): the same claim reinforces the existing
// memory, an alike one with a different claim is named.
//
// # Freshness
//
// Each tool call opens the stores anew and recall opens the bleve index only
// for the duration of the call (index.Recall), so the server never holds the
// index open between calls and a write made by another process (the CLI, a
// hook, another server) is visible on the next call. Decoded documents are
// cached by blob hash (immutable), so listing a large store reads only the
// trees and the documents not seen before.
//
// # Errors
//
// A failed operation is a tool error (a result with isError set), never a
// protocol error, and its message says what to do next: unknown id,
// ambiguous prefix (with candidates), secret refused, empty or too long text.
// A panic in a call is a tool error too; the server keeps serving.
//
// # Malformed input
//
// The client's stream is read line by line before the SDK sees it
// (frameFilter): a line that is not UTF-8 or not JSON (a truncated object
// included) is answered with a -32700 parse error; JSON that is no JSON-RPC
// 2.0 message ({}, [], null, a wrong version or id), a batch, or a line over
// MaxFrameBytes (10 MB) with a -32600 invalid request; blank lines are
// ignored. The line is dropped and the server keeps serving: one bad line
// never ends the session. Memory documents that fail validation are skipped
// (git mem doctor lists them).
package mcp
