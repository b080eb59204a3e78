//go:build !unix

package cmd

// execProcess cannot replace the process here: the caller runs the program
// as a child instead.
func execProcess(path string, args []string) error { return nil }
