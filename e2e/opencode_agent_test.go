package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// OpenCodePackage is the pinned OpenCode (docs/agents.md).
const OpenCodePackage = "opencode-ai@1.18.33"

// OpenCode returns the opencode binary, installing OpenCode when needed.
func OpenCode(t testing.TB) string { return InstallAgent(t, OpenCodePackage, "opencode") }

// slowRunTimeout bounds a run of OpenCode or Qwen Code, which start slowly:
// 25 to 60 s before their first model request on a loaded two-core machine,
// against a few seconds for the others.
const slowRunTimeout = 4 * time.Minute

// openCodeModel is the provider/model every OpenCode run uses: the stand-in
// as an @ai-sdk/openai-compatible provider (bundled in the binary, so
// nothing is fetched).
const openCodeModel = "mock/mock-model"

// RunOpenCode runs `opencode run --format json -m mock/mock-model PROMPT`
// headless and offline against the stand-in's Chat Completions API: the
// user config (Home/.config/opencode/opencode.json) declares the provider
// and allows every tool; models.dev fetches, auto-update, LSP downloads and
// sharing are off, and the models.dev catalogue is an empty file. git-mem's MCP server comes from Dir/opencode.json, its
// plugin from Dir/.opencode/plugins (git mem install opencode).
func RunOpenCode(t testing.TB, r Run) Result {
	t.Helper()
	bin := OpenCode(t)
	home(t, &r)
	if r.Timeout == 0 {
		r.Timeout = slowRunTimeout
	}
	dir := filepath.Join(r.Home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      openCodeModel,
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "mock",
			"options": map[string]any{"baseURL": r.Model.URL + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "mock model", "tool_call": true}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// without a models.dev snapshot OpenCode waits for one before its first
	// model request, fetch disabled or not: an empty catalogue will do
	models := filepath.Join(r.Home, "models.json")
	if err := os.WriteFile(models, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// OpenCode installs @opencode-ai/plugin into every config directory
	// with plugins (.opencode) and waits for it, minutes when the registry
	// is unreachable: the stand-in, as the npm registry, refuses at once
	env := cleanEnv(r.Home, append([]string{
		"npm_config_registry=" + r.Model.URL + "/npm-registry/",
		"OPENCODE_MODELS_PATH=" + models, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
	}, r.Env...))
	args := append([]string{"run", "--format", "json", "-m", openCodeModel}, r.Args...)
	args = append(args, r.Prompt)
	return run(t, r, bin, args, env)
}
