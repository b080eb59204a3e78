// Package install writes and removes git-mem's entries in a coding agent's
// own configuration: the hooks that run git-mem-hook (or "git-mem hook"), the
// MCP server entry, and the instruction block in the agent's instruction
// file. Where each agent keeps those files, and in which shape, comes from
// the agents table (package agents); this package owns the edits.
//
// Files are merged, never replaced: other tools' hooks and servers, comments
// in Codex's TOML and the files' own indentation are kept, git-mem's own
// entries are recognised at whatever binary path they were installed and
// updated in place, and every file is written atomically. Codex runs only
// hooks the user trusted; Install records that trust through codex
// app-server when it can (codextrust.go) and says what is left to do
// otherwise. Only the CLI (package cmd) imports this package: the hook binary
// never installs, and does not link it.
package install
