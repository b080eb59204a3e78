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
// server's working directory; the roots are asked for again when the client
// says they changed. Outside any repository the server serves the personal
// store, and memory_stats says so.
//
// # Writer
//
// Every write records the agent that made it: the --agent flag or
// GIT_MEM_AGENT when set (Options.Agent), else the client's clientInfo.name
// from the initialize request, normalized (claude-code, codex, cursor,
// gemini, …; see NormalizeAgent).
//
// # Freshness
//
// Each tool call opens the stores anew and recall opens the bleve index only
// for the duration of the call (index.Recall), so the server never holds the
// index open between calls and a write made by another process (the CLI, a
// hook, another server) is visible on the next call.
//
// # Errors
//
// A failed operation is a tool error (a result with isError set), never a
// protocol error, and its message says what to do next: unknown id,
// ambiguous prefix (with candidates), secret refused, empty or too long text.
package mcp
