// Package install writes and removes git-mem's entries in a coding agent's
// own configuration: the hooks that run git-mem-hook (or "git-mem hook"), the
// MCP server entry, and the instruction block in the agent's instruction
// file. Where each agent keeps those files, and in which shape, comes from
// the agents table (package agents); this package owns the edits.
//
// Files are edited as surgery, never rewritten: JSON settings are parsed
// with their comments and trailing commas (tailscale/hujson) and Codex's
// config.toml with go-toml's position-keeping parser, only git-mem's own
// entries change (jsonedit.go, toml.go), every other byte stays, and an
// install followed by an uninstall gives each file back byte for byte.
// git-mem's entries are recognised at whatever binary path they were
// installed and updated in place, keeping what the user changed in them
// (env, arguments after "mcp"); hook commands are guarded so that they do
// nothing where the binary is missing (guard.go); every file is written
// atomically. Codex runs only
// hooks the user trusted; Install records that trust through codex
// app-server when it can (codextrust.go) and says what is left to do
// otherwise.
//
// A user's files are never damaged. Every edit of an install or uninstall
// is planned before any file is written, so a file that cannot be edited
// (invalid JSON or TOML, a key written twice, which agents read last and an
// edit would change first, Codex's mcp_servers as an inline table, an edit
// that would leave invalid TOML, a symlink to nowhere) stops it with every
// file as it was. A symlinked config (dotfiles, CLAUDE.md -> AGENTS.md) is
// followed: its file is edited and the link stays. The instruction block's
// markers count only as whole lines outside code fences, and a begin marker
// without its end marker leaves that file alone, with a note saying so. An
// install remembers (InstallOptions.StateFile) the user's empty objects it
// filled, with what their braces held, and the version key it added to
// Cursor's hooks.json, and puts the line break before what it appends so
// that uninstall, taking exactly that back, restores a file without a final
// newline as it was.
//
// Only the CLI (package cmd) imports this package: the hook binary
// never installs, and does not link it.
package install
