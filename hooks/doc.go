// Package hooks adapts coding agents' lifecycle hooks to git-mem: it reads
// an agent's JSON payload, acts (a session start marker and an injection, a
// prompt injection, a session note, a reminder), and writes exactly the JSON
// that agent documents, or nothing. Installing the hooks in each agent's
// configuration is package install's; the agents, their payloads and events
// are package agents'.
//
// # Agents and events
//
// Seven agents are supported: Claude Code (claude), Codex CLI (codex), Gemini
// CLI (gemini), Qwen Code (qwen), GitHub Copilot CLI (copilot), OpenCode
// (opencode, through the plugin package install writes) and Cursor (cursor);
// the exact payloads and outputs are in docs/agents.md. The agent is taken
// from --agent, else detected by agents.Detect: first from the variables of
// the agents that also send others' fields (QWEN_PROJECT_DIR, COPILOT_CLI,
// OPENCODE), then from the payload (Cursor: conversation_id,
// workspace_roots; Qwen Code: timestamp with permission_mode; Copilot:
// timestamp with Claude's event names; Gemini: timestamp,
// BeforeAgent/AfterAgent; Codex: turn_id), else from the environment
// (CLAUDECODE, CODEX_HOME, GEMINI_PROJECT_DIR, …), else Claude Code, whose
// output shape Codex, Gemini, Qwen Code and the OpenCode plugin share.
// Events:
//
//   - session-start: writes the session's start marker, then injects the
//     latest handoff for the branch, preferences and pinned memories, and the
//     memories most relevant to the branch and the files being changed
//     (handoff.SessionStart), at most 8,000 characters. source "compact"
//     injects nothing; "resume" only what changed since the last injection.
//   - prompt: the memories best matching the prompt, at most 2,000
//     characters, each memory at most once per session; nothing for a prompt
//     of fewer than two usable terms.
//   - session-end: the session note (handoff.Sessions.End).
//   - stop: for Cursor (no SessionEnd in older builds) and Qwen Code (whose
//     -p runs never fire SessionEnd) the session note;
//     for Claude Code and Codex a reminder to save what was learned, at most
//     every 5 prompts when nothing was saved, never when stop_hook_active.
//
// Output: Claude Code, Codex and Gemini get
// {"hookSpecificOutput":{"hookEventName":E,"additionalContext":X}} with E
// SessionStart, UserPromptSubmit (Gemini: BeforeAgent) and no other key;
// Cursor gets {"additional_context":X} at session start, the Copilot CLI
// {"additionalContext":X} (it ignores hookSpecificOutput). A stop reminder is
// {"decision":"block","reason":X}.
//
// # Two binaries, one hooks code
//
// Run is called by "git-mem hook EVENT" and by git-mem-hook (cmd/git-mem-hook),
// a small binary that links this package without bleve, cobra or the MCP
// SDK: Go initializes every linked package at start-up, and those alone cost
// several times a bare process start, paid before every session and prompt.
// Both print the same output: recall ranks the same way from the index
// (git-mem) or from the recall snapshot (git-mem-hook), and both keep the
// start cache and the snapshot current in plain Go when they are stale.
// Writes refresh the snapshot (session notes here, index.Access.Remember for
// memories), and warm refreshes it too, so the next hook finds it current.
// The installer registers git-mem-hook when it sits next to the git-mem that
// installs (else "git-mem hook"); uninstall and doctor recognise both forms.
//
// # Never hurting a session
//
// Run always returns normally, and the command exits 0. The repository is the
// payload's cwd (Cursor: the first of workspace_roots), never the process's
// directory. Stdout holds one valid JSON document or nothing. Errors go to
// <git common dir>/mem/hooks.log (kept under 256 KiB: when it grows past that
// it becomes hooks.log.1), and to stderr only when GIT_MEM_DEBUG is set.
// Each event has an internal deadline, after which the hook writes nothing
// and returns (work already started may finish or be abandoned; a write cut
// short leaves at worst unreachable objects): session-start 6 s, prompt 3 s,
// stop 2 s, session-end 700 ms (Codex kills SessionEnd hooks after 1 s). The
// environment variable GIT_MEM_HOOK_DEADLINE_MS overrides it. A hook that
// writes the session note and passes its deadline before the note is
// written, or reaches the write with too little time left to start it,
// hands its payload to "hook finish" in the background, so a loaded
// machine delays the note and loses nothing; the warm-up of a session-start
// or prompt hook past its deadline records the session's start if the hook
// did not. Hooks never
// fold the recall snapshot's delta into a new base (a second at 100,000
// memories): they append with index.Access.DeferFolds and leave the fold to warm.
// SIGINT and SIGTERM cancel a hook like its deadline once it has taken a
// lock (SignalContext); before that a signal ends it at once.
package hooks
