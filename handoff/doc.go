// Package handoff owns what a coding-agent session starts and ends with:
// boot (what a new session is shown: preferences and pinned memories, then
// the memories most relevant to the task and branch, within a budget), and,
// as they are added, session markers, SessionEnd notes and handoffs.
//
// It sits between the index (recall) and the surfaces (hooks, mcp, cmd): it
// imports gitstore and index, never cobra, the MCP SDK or bleve.
package handoff
