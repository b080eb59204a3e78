package cmd_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

func TestCLIInstallUninstall(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	for _, agent := range []string{"claude", "codex", "gemini", "cursor"} {
		t.Run(agent, func(t *testing.T) {
			out := mustRun(t, sb, "install", agent, "--binary", "git-mem")
			require.Contains(t, out, "git-mem installed for "+agent+" (project scope)")
			out = mustRun(t, sb, "install", agent, "--binary", "git-mem")
			require.NotContains(t, out, "created")
			doctor, _, _ := sb.run("doctor", "--offline")
			require.Contains(t, doctor, "agent "+agent+" (project)")
			out = mustRun(t, sb, "uninstall", agent)
			require.Contains(t, out, "removed")
		})
	}
	entries, err := os.ReadDir(sb.repo)
	require.NoError(t, err)
	for _, e := range entries {
		require.Equal(t, ".git", e.Name(), "uninstall left %s behind", filepath.Join(sb.repo, e.Name()))
	}
	_, errOut, code := sb.run("install", "vim")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "unknown agent")
}

// TestCLIInstallOutsideARepository: outside a repository, install says what
// it has (--user), never the --global of other commands, and writes nothing.
func TestCLIInstallOutsideARepository(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	outside := t.TempDir()
	_, errOut, code := sb.runIn(outside, "install", "claude")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "pass --user")
	require.NotContains(t, errOut, "--global")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Empty(t, entries)
}

// TestCLIDoctorMissingHookBinary: a project config committed by a teammate
// runs git-mem-hook, which this machine lacks: the hooks skip themselves
// silently, and doctor says so and how to install it.
func TestCLIDoctorMissingHookBinary(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	_, err := install.Install(context.Background(), install.InstallOptions{Agent: agents.Claude, Root: sb.repo, Home: sb.home, Binary: "git-mem", HookBinary: install.HookBinaryName})
	require.NoError(t, err)
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir() // git, and nothing of git-mem
	require.NoError(t, os.Symlink(gitPath, filepath.Join(bin, "git")))
	t.Setenv("PATH", bin)
	out, _, code := sb.run("doctor", "--offline")
	require.Equal(t, 1, code)
	require.Contains(t, out, "git-mem-hook does not exist or is not on PATH; the hooks do nothing on this machine until it is installed")
	require.Contains(t, out, "CGO_ENABLED=0 go install github.com/git-mem/git-mem/cmd/git-mem-hook@latest")
}
