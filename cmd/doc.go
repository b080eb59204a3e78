// Package cmd owns the git-mem command line: one cobra verb per file, each an
// options struct and a RunE that validates and calls runX(ctx, env, opts). It
// is the only package that imports cobra and the only one that touches
// os.Stdin, os.Stdout, os.Exit, flags and the environment.
//
// Exit codes: 0 success; 1 an error the user can fix (bad input, unknown id,
// busy or damaged store), with a message on stderr saying what to do; 2 a
// usage error (unknown command or flag, wrong number of arguments).
package cmd
