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
// otherwise. Only the CLI (package cmd) imports this package: the hook binary
// never installs, and does not link it.
package install
