// Package cmd owns the git-mem command line: one cobra verb per file, each an
// options struct and a RunE that validates and calls runX(ctx, env, opts). It
// is the only package that imports cobra and the only one that touches
// os.Stdin, os.Stdout, os.Exit and flags (with the binaries' main packages
// under cmd/); it reads git-mem's own environment variables and hands them
// down (the packages that read git's own are listed in docs/architecture.md,
// "The environment"). It links neither the bleve engine
// (index/bleveindex) nor the MCP server (package mcp), whose package
// initialization would slow down every command: git-mem recalls from the
// recall snapshot, and the mcp verb runs cmd/git-mem-mcp, the binary that
// wires both in (UseMCPServer, MCPMain) and otherwise runs this same verb;
// companion.go finds the binaries installed beside git-mem. cmd/git-mem-hook,
// which runs the agents' hooks without cobra, does not import this package.
//
// The command tree is also the source of git-mem's man pages (install --man,
// written by manpages.go, without cobra's doc generator) and of its shell
// completion (cobra's hidden __complete command, which the scripts of
// completion bash|zsh call from git's own completion); help groups live in
// groups.go.
//
// Exit codes: 0 success; 1 an error the user can fix (bad input, unknown id,
// busy or damaged store), with a message on stderr saying what to do; 2 a
// usage error (unknown command or flag, wrong number of arguments).
package cmd
