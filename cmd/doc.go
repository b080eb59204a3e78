// Package cmd owns the git-mem command line: one cobra verb per file, each an
// options struct and a RunE that validates and calls runX(ctx, env, opts). It
// is the only package that imports cobra and the only one that touches
// os.Stdin, os.Stdout, os.Exit, flags and the environment (with the two
// binaries' main packages, cmd/git-mem and cmd/git-mem-hook). Run wires the
// bleve engine (index/bleveindex) into recall; cmd/git-mem-hook, which runs
// the agents' hooks without cobra, bleve or the MCP SDK, does not import
// this package.
//
// The command tree is also the source of git-mem's man pages (install --man,
// through cobra's doc generator) and of its shell completion (cobra's hidden
// __complete command, which the scripts of completion bash|zsh call from
// git's own completion); help groups live in groups.go.
//
// Exit codes: 0 success; 1 an error the user can fix (bad input, unknown id,
// busy or damaged store), with a message on stderr saying what to do; 2 a
// usage error (unknown command or flag, wrong number of arguments).
package cmd
