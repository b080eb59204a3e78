// Package handoff owns what a coding-agent session starts and ends with.
//
//   - Boot: what a new session is shown — the branch's latest handoff, then
//     preferences and pinned memories, then the memories most relevant to the
//     task and branch, and the newest memories (a quarter of the list, whatever
//     their score, so a stale summary never hides the latest state) — within a
//     budget, leaving out memories under trust 0.40 and those written by
//     subagents.
//   - Sessions: start markers, shown-sets and note locks under
//     <git dir>/mem/sessions/; one session note per session (commits made,
//     files changed, files left dirty), saved once, nothing when nothing
//     happened.
//   - Handoffs: one current handoff per branch (tag branch:<name>), each
//     superseding the branch's previous one.
//   - Injections: the session-start and prompt texts the hooks print.
//   - A start cache at <common dir>/mem/cache/start.json (preferences, pinned
//     memories, handoffs and the most recent memories), kept current by tree
//     diffs so that a hook never reads the whole store; safe to delete. It
//     is read in parts: the head (tips, subagent keys) and the standing
//     memories, a line each, at every start; the recent memories' lines are
//     decoded only when a start falls back to them. PrepareStart reads it
//     while the hook looks at the worktree. A writer brings it forward over
//     its own write (JournalWrites), so the next start usually finds it
//     current.
//
// It sits between the index (recall) and the surfaces (hooks, mcp, cmd): it
// imports gitstore and index, never cobra, the MCP SDK or bleve.
package handoff
