//go:build !unix

package hooks

import (
	"os"
	"os/exec"
)

func detach(*exec.Cmd) {}

// unlinkOpen does nothing where an open file cannot lose its name; the
// system's temporary directory is cleaned by the system.
func unlinkOpen(*os.File) {}
