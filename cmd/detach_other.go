//go:build !unix

package cmd

import "os/exec"

// detachProcess: elsewhere a background process is started as it is.
func detachProcess(*exec.Cmd) {}
