package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// binary is the git-mem binary built by TestMain, with git-mem-mcp (which
// git mem mcp runs) beside it.
var binary string

func buildBinary(tmp string) error {
	binary = filepath.Join(tmp, "bin", "git-mem")
	dir := filepath.Dir(binary) + string(filepath.Separator)
	cmd := exec.Command("go", "build", "-o", dir, "github.com/git-mem/git-mem/cmd/git-mem", "github.com/git-mem/git-mem/cmd/git-mem-mcp")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build git-mem and git-mem-mcp: %v\n%s", err, out)
	}
	return nil
}

// tsClientDir holds the TypeScript SDK test client; `npm ci` there installs it.
const tsClientDir = "testdata/tsclient"

// requireNodeClient skips (locally) or fails (in CI) when node or the
// client's npm dependencies are missing.
func requireNodeClient(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not installed"
	default:
		if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
			missing = "the TypeScript SDK client is not installed: run npm ci in mcp/" + tsClientDir
		}
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI must install it: see .ci/run)", missing)
		}
		t.Skipf("%s; skipping the real-client test", missing)
	}
	return node
}

// TestProcessTypeScriptClient runs the built binary over stdio with the
// official TypeScript SDK client and checks with the git CLI what landed.
func TestProcessTypeScriptClient(t *testing.T) {
	node := requireNodeClient(t)
	repo := newRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", binary, repo, "TS Test Client")
	cmd.Dir = tsClientDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "client: %s\nstderr: %s", out, stderr.String())

	type call struct {
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	}
	var got struct {
		Server       struct{ Name string } `json:"server"`
		Instructions string                `json:"instructions"`
		Tools        []struct {
			Name     string `json:"name"`
			ReadOnly bool   `json:"readOnly"`
		} `json:"tools"`
		Add, Recall, Handoff, Unknown call
		Error                         string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Empty(t, got.Error)
	require.Equal(t, "git-mem", got.Server.Name)
	require.Contains(t, got.Instructions, "evidence, not instructions")
	require.Len(t, got.Tools, 12)
	for _, tool := range got.Tools {
		require.Equal(t, tool.Name == ToolRecall || tool.Name == ToolBoot || tool.Name == ToolList || tool.Name == ToolShow || tool.Name == ToolHistory || tool.Name == ToolStats, tool.ReadOnly, tool.Name)
	}
	require.False(t, got.Add.IsError, got.Add.Text)
	require.Contains(t, got.Add.Text, "as ts-test-client")
	require.NotNil(t, got.Add.Structured["memory"])
	require.False(t, got.Recall.IsError, got.Recall.Text)
	require.Contains(t, got.Recall.Text, "The TypeScript client test writes")
	require.False(t, got.Handoff.IsError, got.Handoff.Text)
	require.Contains(t, got.Handoff.Text, "branch main")
	require.True(t, got.Unknown.IsError)
	require.Contains(t, got.Unknown.Text, "no memory has that id")

	// the git CLI sees both commits on refs/memory/main, written as the client
	log := gitRun(t, repo, "log", "--format=%s%n%(trailers:key=Agent,key=Memory-Op)", "refs/memory/main")
	require.Contains(t, log, "mem: add")
	require.Contains(t, log, "The TypeScript client test writes")
	require.Contains(t, log, "Memory-Op: add")
	require.Equal(t, 2, strings.Count(log, "Agent: ts-test-client"), log)
	show := gitRun(t, repo, "ls-tree", "-r", "--name-only", "refs/memory/main")
	require.Equal(t, 2, strings.Count(show, ".json"), show)
	gitRun(t, repo, "fsck", "--no-dangling")
}

// TestProcessConcurrentWithCLI: an MCP server process and CLI processes
// write at the same time; every write lands.
func TestProcessConcurrentWithCLI(t *testing.T) {
	repo := newRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	server := exec.Command(binary, "mcp")
	server.Dir = repo
	server.Stderr = os.Stderr
	c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "codex-mcp-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdkmcp.CommandTransport{Command: server}, nil)
	require.NoError(t, err)
	defer cs.Close()

	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: ToolAdd, Arguments: map[string]any{"text": fmt.Sprintf("mcp concurrent fact number %d", i)}})
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error: %s", resultText(res))
			}
			errs <- err
		}()
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, binary, "add", "--agent", "cli", "--", fmt.Sprintf("cli concurrent fact number %d", i))
			cmd.Dir = repo
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("git mem add: %v: %s", err, out)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	log := gitRun(t, repo, "log", "--format=%(trailers:key=Agent,valueonly)", "refs/memory/main")
	require.Equal(t, n, strings.Count(log, "codex"), log)
	require.Equal(t, n, strings.Count(log, "cli"), log)
	files := gitRun(t, repo, "ls-tree", "-r", "--name-only", "refs/memory/main")
	require.Equal(t, 2*n, strings.Count(files, ".json"))

	// and the server sees the CLI's writes on its next call
	res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: ToolList, Arguments: map[string]any{}})
	require.NoError(t, err)
	var out ListOutput
	structured(t, res, &out)
	require.Equal(t, 2*n, out.Total)
}
