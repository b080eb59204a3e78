package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// The git-mem binaries are installed side by side (go install ./cmd/...):
// git-mem, git-mem-hook (the agents' hooks) and git-mem-mcp (the MCP
// server, which alone links the bleve index and the MCP SDK). This file is
// the one place that finds one from another.

// installHint says how to install one of the binaries. Without cgo (which
// only the standard library's DNS resolver would use, through a flag
// package) each binary is linked statically and starts without the dynamic
// loader: a few milliseconds on every hook and command.
func installHint(binary string) string {
	return "CGO_ENABLED=0 go install github.com/git-mem/git-mem/cmd/" + binary + "@latest " +
		"(or, from a checkout of git-mem, CGO_ENABLED=0 go install ./cmd/...)"
}

// mcpBinaryName is the MCP server's binary (cmd/git-mem-mcp), which
// "git mem mcp" runs.
const mcpBinaryName = "git-mem-mcp"

// errNoCompanion means a git-mem binary is neither beside the running one
// nor on PATH.
var errNoCompanion = errors.New("not found")

// executableDir is the directory of the running executable, symlinks
// resolved (a binary linked into ~/bin finds the ones installed beside its
// target); "" when the system cannot say.
func executableDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	return filepath.Dir(exe)
}

// companionIn is the binary called name in dir when it is an executable
// file there, else "".
func companionIn(dir, name string) string {
	if dir == "" {
		return ""
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	full := filepath.Join(dir, name)
	st, err := os.Stat(full)
	if err != nil || st.IsDir() || runtime.GOOS != "windows" && st.Mode()&0o111 == 0 {
		return ""
	}
	return full
}

// findCompanion finds the git-mem binary called name: beside the running
// executable first (the set it was installed with), else on the PATH
// getenv gives (errNoCompanion when on neither).
func findCompanion(name string, getenv func(string) string) (string, error) {
	if full := companionIn(executableDir(), name); full != "" {
		return full, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		// a relative entry would find a binary of the current directory
		// (a repository's own), which exec.LookPath refuses too
		if !filepath.IsAbs(dir) {
			continue
		}
		if full := companionIn(dir, name); full != "" {
			return full, nil
		}
	}
	return "", errNoCompanion
}
