package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// CopilotPackage is the pinned GitHub Copilot CLI (docs/agents.md).
const CopilotPackage = "@github/copilot@1.0.102"

// Copilot returns the copilot binary, installing the Copilot CLI when needed.
func Copilot(t testing.TB) string { return InstallAgent(t, CopilotPackage, "copilot") }

// copilotModelName is the model every Copilot CLI run asks the stand-in for.
const copilotModelName = "gpt-mock"

// RunCopilot runs `copilot -p PROMPT --allow-all-tools` headless and offline
// (COPILOT_OFFLINE) against the stand-in's Chat Completions API as a BYOK
// provider (COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_TYPE=openai, a dummy
// key), with the project folder trusted in Home's .copilot/config.json (the
// CLI loads repository hooks and workspace MCP servers in -p runs only in a
// trusted folder). Hooks come from Dir/.github/hooks/*.json, MCP servers
// from Dir/.mcp.json (git mem install copilot).
func RunCopilot(t testing.TB, r Run) Result {
	t.Helper()
	bin := Copilot(t)
	home(t, &r)
	dir := filepath.Join(r.Home, ".copilot")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"trusted_folders": []string{r.Dir}, "banner": "never"}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(r.Home, append([]string{
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL=" + r.Model.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=" + copilotModelName,
	}, r.Env...))
	args := append([]string{"-p", r.Prompt, "--allow-all-tools", "--no-color"}, r.Args...)
	return run(t, r, bin, args, env)
}
