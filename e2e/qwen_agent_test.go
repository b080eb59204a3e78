package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// QwenPackage is the pinned Qwen Code (docs/agents.md).
const QwenPackage = "@qwen-code/qwen-code@0.24.4"

// Qwen returns the qwen binary, installing Qwen Code when needed.
func Qwen(t testing.TB) string { return InstallAgent(t, QwenPackage, "qwen") }

// qwenModelName is the model every Qwen Code run asks the stand-in for.
const qwenModelName = "qwen-mock"

// qwenUserSettings is the user settings.json of every Qwen Code run:
// OpenAI-compatible auth, no telemetry or usage statistics, no update checks,
// no IDE.
var qwenUserSettings = map[string]any{
	"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
	"privacy":   map[string]any{"usageStatisticsEnabled": false},
	"telemetry": map[string]any{"enabled": false},
	"general":   map[string]any{"enableAutoUpdate": false},
	"ide":       map[string]any{"enabled": false},
}

// RunQwen runs `qwen -p PROMPT --output-format json` headless against the
// stand-in's Chat Completions API (OPENAI_BASE_URL, a dummy OPENAI_API_KEY,
// OPENAI_MODEL), with Home's .qwen/settings.json as the user settings (see
// qwenUserSettings). Hooks and MCP servers come from Dir/.qwen/settings.json
// (git mem install qwen).
func RunQwen(t testing.TB, r Run) Result {
	t.Helper()
	bin := Qwen(t)
	home(t, &r)
	if r.Timeout == 0 {
		r.Timeout = slowRunTimeout
	}
	dir := filepath.Join(r.Home, ".qwen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(qwenUserSettings, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(r.Home, append([]string{
		"OPENAI_BASE_URL=" + r.Model.URL + "/v1", "OPENAI_API_KEY=dummy", "OPENAI_MODEL=" + qwenModelName,
		"QWEN_TELEMETRY_ENABLED=false", "QWEN_USAGE_STATISTICS_ENABLED=false", "QWEN_CODE_NO_RELAUNCH=true",
	}, r.Env...))
	args := append([]string{"-p", r.Prompt, "--output-format", "json"}, r.Args...)
	return run(t, r, bin, args, env)
}
