//go:build !unix

package cmd

import "errors"

// canExec: this system cannot replace a process with another program, so
// git mem mcp runs git-mem-mcp as a child.
const canExec = false

func execProcess(path string, args []string) error {
	return errors.ErrUnsupported
}
