// Command git-mem is the shared memory of coding agents, stored in git.
package main

import (
	"os"

	"github.com/git-mem/git-mem/cmd"
)

func main() { os.Exit(cmd.Main()) }
