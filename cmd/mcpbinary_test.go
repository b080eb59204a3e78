package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

// mcpProcess starts the git-mem binary with args (git mem mcp) in dir as
// an MCP client named client would, calls tool with arguments, and returns
// the tool's result once the server stopped on the end of its stdin, with
// the path of the executable that served (from /proc, where there is one).
func (sb *sandbox) mcpProcess(dir string, env []string, client, tool string, arguments map[string]any, args ...string) (map[string]any, string) {
	t := sb.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, binary, args...)
	c.Dir = dir
	c.Env = append(sb.env(), env...)
	var errb bytes.Buffer
	c.Stderr = &errb
	in, err := c.StdinPipe()
	require.NoError(t, err)
	out, err := c.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.Start())
	rpc := newRPCClient(t, in, out, &errb)
	rpc.initialize(client)
	served, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(c.Process.Pid), "exe"))
	rpc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": arguments}})
	require.NoError(t, err)
	rpc.send(string(call))
	res := rpc.recv(2)
	require.NoError(t, in.Close())
	go io.Copy(io.Discard, out)
	require.NoError(t, c.Wait(), "git mem mcp: %s", errb.String())
	return res["result"].(map[string]any), served
}

// mcpCall calls tool through git mem mcp run in the repository.
func (sb *sandbox) mcpCall(env []string, tool string, arguments map[string]any) map[string]any {
	res, _ := sb.mcpProcess(sb.repo, env, "claude-code", tool, arguments, "mcp")
	require.NotEqual(sb.t, true, res["isError"], res)
	return res
}

// TestMCPVerbRunsTheServerBinary: git mem mcp becomes git-mem-mcp, found
// beside git-mem, with its flags and environment.
func TestMCPVerbRunsTheServerBinary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     []string
		outside bool
		args    []string
		agent   string
	}{
		{"client name", nil, false, []string{"mcp"}, "claude-code"},
		{"GIT_MEM_AGENT", []string{"GIT_MEM_AGENT=codex"}, false, []string{"mcp"}, "codex"},
		{"agent flag and -C", []string{"GIT_MEM_AGENT=codex"}, true, []string{"-C", "REPO", "mcp", "--agent", "gemini"}, "gemini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			dir := sb.repo
			if tc.outside {
				dir = t.TempDir()
			}
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "REPO" {
					args[i] = sb.repo
				}
			}
			res, served := sb.mcpProcess(dir, tc.env, "Claude Code", "memory_add", map[string]any{"text": "git mem mcp hands the session to git-mem-mcp"}, args...)
			require.NotEqual(t, true, res["isError"], res)
			require.Contains(t, fmt.Sprint(res["content"]), "as "+tc.agent)
			require.Contains(t, fmt.Sprint(res["content"]), "project memory")
			require.Contains(t, sb.git("log", "-1", "--format=%B", "refs/memory/main"), "Agent: "+tc.agent)
			if runtime.GOOS == "linux" {
				// the process was replaced, not made a parent
				require.Equal(t, filepath.Join(filepath.Dir(binary), "git-mem-mcp"), served)
			}
			// the server brought its search index up in the background
			require.Eventually(t, func() bool {
				_, err := os.Stat(filepath.Join(sb.repo, ".git", "mem", "index", "git-mem-state.json"))
				return err == nil
			}, 10*time.Second, 20*time.Millisecond)
		})
	}
}

// TestMCPVerbWithoutTheServerBinary: a git-mem installed alone says how to
// install the server, with exit code 1, and writes nothing on stdout (the
// client's protocol stream).
func TestMCPVerbWithoutTheServerBinary(t *testing.T) {
	sb := newSandbox(t)
	alone := filepath.Join(t.TempDir(), "git-mem")
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, data, 0o755))
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir() // git, and nothing of git-mem
	require.NoError(t, os.Symlink(gitPath, filepath.Join(bin, "git")))

	c := exec.Command(alone, "mcp")
	c.Dir = sb.repo
	c.Env = append(sb.env(), "PATH="+bin)
	var out, errb bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(nil), &out, &errb
	err = c.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode(), errb.String())
	require.Empty(t, out.String())
	require.Contains(t, errb.String(), "git-mem-mcp, is neither beside git-mem nor on PATH")
	require.Contains(t, errb.String(), "CGO_ENABLED=0 go install github.com/git-mem/git-mem/cmd/git-mem-mcp@latest")

	// on PATH it is found there
	require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(binary), "git-mem-mcp"), filepath.Join(bin, "git-mem-mcp")))
	c = exec.Command(alone, "mcp")
	c.Dir = sb.repo
	c.Env = append(sb.env(), "PATH="+bin)
	c.Stdin = bytes.NewReader(nil)
	outb, err := c.CombinedOutput()
	require.NoError(t, err, string(outb))
}

// TestDoctorMCPBinary: with an MCP entry registered, doctor says whether
// git mem mcp finds the server's binary; install warns when it does not.
func TestDoctorMCPBinary(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	_, err := install.Install(context.Background(), install.InstallOptions{Agent: agents.Claude, Root: sb.repo, Home: sb.home, Binary: "git-mem"})
	require.NoError(t, err)
	out, _, code := sb.memEnv(sb.repo, nil, "doctor", "--offline")
	require.Contains(t, out, "git mem mcp runs "+filepath.Join(filepath.Dir(binary), "git-mem-mcp"), "code %d", code)
	// in this process, with nothing on PATH and nothing beside the test binary
	out, _, code = sb.run("doctor", "--offline")
	require.Equal(t, 1, code)
	require.Contains(t, out, "git-mem-mcp is neither beside git-mem nor on PATH")
	require.Contains(t, out, "CGO_ENABLED=0 go install github.com/git-mem/git-mem/cmd/git-mem-mcp@latest")
	// and install, registering the MCP server, warns
	_, errOut, code := sb.run("install", "codex", "--binary", "git-mem")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: the MCP server's binary, git-mem-mcp, is neither beside git-mem nor on PATH")
	require.Contains(t, errOut, "will not start until it is")
}
