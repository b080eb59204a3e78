//go:build unix

package cmd

import (
	"os"
	"syscall"
)

// canExec: this system can replace a process with another program.
const canExec = true

// execProcess replaces this process with the program at path, given args
// and this process's environment; it returns only when that fails.
func execProcess(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
