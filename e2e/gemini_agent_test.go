package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// GeminiPackage is the pinned Gemini CLI (docs/agents.md).
const GeminiPackage = "@google/gemini-cli@0.61.0"

// Gemini returns the gemini binary, installing the Gemini CLI when needed.
func Gemini(t testing.TB) string { return InstallAgent(t, GeminiPackage, "gemini") }

// geminiUserSettings is the user settings.json of every Gemini run: API-key
// auth, no telemetry or usage statistics, no update checks, no IDE, no
// folder-trust prompt.
var geminiUserSettings = map[string]any{
	"security": map[string]any{
		"auth":        map[string]any{"selectedType": "gemini-api-key"},
		"folderTrust": map[string]any{"enabled": false},
	},
	"privacy":   map[string]any{"usageStatisticsEnabled": false},
	"telemetry": map[string]any{"enabled": false},
	"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	"ide":       map[string]any{"enabled": false},
}

// RunGemini runs `gemini -p PROMPT --output-format json` headless against
// the stand-in (GOOGLE_GEMINI_BASE_URL, a dummy GEMINI_API_KEY), with Home's
// .gemini/settings.json as the user settings (see geminiUserSettings).
// Hooks and MCP servers come from Dir/.gemini/settings.json (git mem install
// gemini).
func RunGemini(t testing.TB, r Run) Result {
	t.Helper()
	bin := Gemini(t)
	home(t, &r)
	dir := filepath.Join(r.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(geminiUserSettings, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(r.Home, append([]string{
		"GOOGLE_GEMINI_BASE_URL=" + r.Model.URL, "GEMINI_API_KEY=dummy",
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_TELEMETRY_ENABLED=false",
	}, r.Env...))
	args := append([]string{"-p", r.Prompt, "--output-format", "json"}, r.Args...)
	return run(t, r, bin, args, env)
}
