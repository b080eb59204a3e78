package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Pinned agent packages (docs/agents.md).
const (
	ClaudePackage = "@anthropic-ai/claude-code@2.1.328"
	CodexPackage  = "@openai/codex@0.169.0"
)

// installTimeout bounds one npm install of an agent.
const installTimeout = 5 * time.Minute

// RunTimeout is the default bound of one agent run.
const RunTimeout = 2 * time.Minute

// AgentCache is where agents are installed and reused between runs:
// GIT_MEM_E2E_AGENTS, else .agents in the package directory (gitignored).
func AgentCache() string {
	if d := os.Getenv("GIT_MEM_E2E_AGENTS"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	return filepath.Join(wd, ".agents")
}

// needTool skips the test when a program is missing, or fails it under CI=true.
func needTool(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI must provide it (see .ci/run)", why)
	}
	t.Skipf("%s; skipping the real-agent test", why)
}

var installMu sync.Mutex

// InstallAgent installs an npm package (name@version) into the agent cache
// once and returns the path of its binary bin (node_modules/.bin/<bin>).
// The layout, <cache>/<name with / as _>@<version>/ with a .installed marker,
// is the one .ci/run uses.
func InstallAgent(t testing.TB, pkg, bin string) string {
	t.Helper()
	installMu.Lock()
	defer installMu.Unlock()
	if _, err := exec.LookPath("node"); err != nil {
		needTool(t, "node is not installed")
	}
	dir := filepath.Join(AgentCache(), strings.ReplaceAll(pkg, "/", "_"))
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err == nil {
		return path
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		needTool(t, "npm is not installed and "+pkg+" is not in "+AgentCache())
	}
	if err := os.MkdirAll(AgentCache(), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(AgentCache(), ".install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save", pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", pkg, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(pkg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return path
}

// Claude returns the claude binary, installing Claude Code when needed.
func Claude(t testing.TB) string { return InstallAgent(t, ClaudePackage, "claude") }

// Codex returns the codex binary, installing Codex when needed.
func Codex(t testing.TB) string { return InstallAgent(t, CodexPackage, "codex") }

// Run is one headless agent run.
type Run struct {
	// Dir is the working directory: the project (a repository).
	Dir string
	// Prompt is the user's prompt.
	Prompt string
	// Model is the stand-in the agent talks to.
	Model *Model
	// Home is the HOME (and, for Codex, CODEX_HOME's parent) of the run; a
	// new temp dir when empty. Reuse it to resume sessions.
	Home string
	// Env adds KEY=VALUE entries to the clean environment.
	Env []string
	// Args are extra command-line arguments (before the prompt).
	Args []string
	// CodexConfig is TOML appended to Codex's config.toml (MCP servers,
	// hooks, …).
	CodexConfig string
	// Timeout bounds the run (RunTimeout when 0).
	Timeout time.Duration
}

// Result is what an agent run printed.
type Result struct {
	Stdout, Stderr string
	Err            error
}

func (r Result) String() string {
	return fmt.Sprintf("error: %v\nstdout:\n%s\nstderr:\n%s", r.Err, r.Stdout, r.Stderr)
}

// cleanEnv is the environment of an agent run: nothing from the developer's
// environment but PATH (git-mem's directory first) and the locale.
func cleanEnv(home string, extra []string) []string {
	env := []string{
		"HOME=" + home, "USER=e2e", "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + os.TempDir(),
		"PATH=" + GitMemDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=E2E Person", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=E2E Person", "GIT_COMMITTER_EMAIL=e2e@example.com",
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"NO_COLOR=1",
	}
	return append(env, extra...)
}

func run(t testing.TB, r Run, bin string, args []string, env []string) Result {
	t.Helper()
	timeout := r.Timeout
	if timeout == 0 {
		timeout = RunTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = r.Dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("%s did not finish within %s", filepath.Base(bin), timeout))
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

func home(t testing.TB, r *Run) {
	if r.Home == "" {
		r.Home = t.TempDir()
	}
}

// RunClaude runs `claude -p PROMPT --output-format json --allowedTools
// mcp__gitmem` headless against the stand-in (ANTHROPIC_BASE_URL), with MCP
// tools offered up front (ENABLE_TOOL_SEARCH=false). MCP servers come from
// Dir/.mcp.json (see ClaudeMCP), hooks from Dir/.claude/settings.json.
func RunClaude(t testing.TB, r Run) Result {
	t.Helper()
	bin := Claude(t)
	home(t, &r)
	env := cleanEnv(r.Home, append([]string{
		"ANTHROPIC_BASE_URL=" + r.Model.URL, "ANTHROPIC_API_KEY=dummy",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "ENABLE_TOOL_SEARCH=false",
	}, r.Env...))
	args := append([]string{"-p", r.Prompt, "--output-format", "json", "--allowedTools", "mcp__gitmem"}, r.Args...)
	return run(t, r, bin, args, env)
}

// RunCodex runs `codex exec --skip-git-repo-check
// --dangerously-bypass-hook-trust PROMPT` headless against the stand-in: a
// CODEX_HOME under Home whose config.toml selects the mock provider (Responses
// API at the stand-in, no retries), never asks for approval, and has
// r.CodexConfig appended (see CodexMCP).
func RunCodex(t testing.TB, r Run) Result {
	t.Helper()
	bin := Codex(t)
	home(t, &r)
	codexHome := filepath.Join(r.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "gpt-mock"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "%s/v1"
env_key = "GIT_MEM_E2E_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

%s
`, r.Model.URL, r.CodexConfig)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(r.Home, append([]string{"CODEX_HOME=" + codexHome, "GIT_MEM_E2E_KEY=dummy", "RUST_LOG=warn"}, r.Env...))
	args := append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"}, r.Args...)
	args = append(args, r.Prompt)
	return run(t, r, bin, args, env)
}

// ClaudeMCP writes dir/.mcp.json declaring git-mem's MCP server as "gitmem"
// (tools mcp__gitmem__*), started as `GitMem mcp` plus args.
func ClaudeMCP(t testing.TB, dir string, args ...string) {
	t.Helper()
	cfg := map[string]any{"mcpServers": map[string]any{"gitmem": map[string]any{
		"type": "stdio", "command": GitMem, "args": append([]string{"mcp"}, args...), "env": map[string]any{},
	}}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CodexMCP is the config.toml section declaring git-mem's MCP server as
// "gitmem" (namespace mcp__gitmem), for Run.CodexConfig.
func CodexMCP(args ...string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	all := []string{q("mcp")}
	for _, a := range args {
		all = append(all, q(a))
	}
	return fmt.Sprintf("[mcp_servers.gitmem]\ncommand = %s\nargs = [%s]\n", q(GitMem), strings.Join(all, ", "))
}
