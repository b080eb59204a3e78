package agents

import "path/filepath"

// Scope is where an agent's configuration is read and written: the
// repository's files (Root) or, with User, the user's own (Home, and
// CodexHome for Codex, $CODEX_HOME: Home/.codex when empty).
type Scope struct {
	User                  bool
	Root, Home, CodexHome string
}

// CodexDir is Codex's home directory: $CODEX_HOME, else Home/.codex.
func (o Scope) CodexDir() string {
	if o.CodexHome != "" {
		return o.CodexHome
	}
	return filepath.Join(o.Home, ".codex")
}

// OpenCodeDir is OpenCode's config directory: .opencode in the project, else
// ~/.config/opencode.
func (o Scope) OpenCodeDir() string {
	return o.base(".opencode", filepath.Join(".config", "opencode"))
}

func (o Scope) base(project, user string) string {
	if o.User {
		return filepath.Join(o.Home, user)
	}
	return filepath.Join(o.Root, project)
}

// Hook is one hook registration: the agent's event name, our event (one of
// Events), the matcher (nested formats) and the timeout in the agent's unit.
type Hook struct {
	Name, Event, Matcher string
	Timeout              int
}

// Config is where and how an agent is configured.
type Config struct {
	// HooksFile, MCPFile and InstructionsFile are the agent's hook, MCP
	// server and instruction files in a scope (some may be the same file;
	// InstructionsFile may be "" when the agent keeps none in a file).
	HooksFile, MCPFile, InstructionsFile func(Scope) string
	// Flat: Cursor's {"version":1,"hooks":{"event":[handler]}}; otherwise
	// {"hooks":{"Event":[{"matcher":…,"hooks":[handler]}]}}.
	Flat bool
	// TOML: the MCP server goes into a TOML file (Codex).
	TOML    bool
	Hooks   []Hook
	MCPType bool // write "type":"stdio" (Claude Code, Copilot CLI)
	Named   bool // handlers carry "name" (Gemini)
	// MCPAlwaysLoad writes "alwaysLoadTools": true on the server: Qwen Code
	// otherwise defers MCP tools behind its tool_search tool, and the model
	// is not offered memory_recall or memory_add up front.
	MCPAlwaysLoad bool
	// OpenCode: the hooks file is git-mem's OpenCode plugin and the MCP
	// server goes under opencode.json's "mcp" (install/opencode.go).
	OpenCode bool
}

// ConfigOf is the configuration of an agent (a name Normalize accepts).
func ConfigOf(agent string) (Config, bool) {
	name := Normalize(agent)
	for _, c := range configs {
		if c.agent == name {
			return c.Config, true
		}
	}
	return Config{}, false
}

// agentConfig is an agent's name and configuration.
type agentConfig struct {
	agent string
	Config
}

// configs is the table of agents' configurations, a literal the compiler
// lays out: a map would be built at every process start, the hooks' too.
var configs = []agentConfig{
	{Claude, Config{
		HooksFile: func(o Scope) string { return filepath.Join(o.base(".claude", ".claude"), "settings.json") },
		MCPFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".claude.json")
			}
			return filepath.Join(o.Root, ".mcp.json")
		},
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".claude", "CLAUDE.md")
			}
			return filepath.Join(o.Root, "CLAUDE.md")
		},
		Hooks: []Hook{
			{"SessionStart", EventSessionStart, "startup|resume|clear|compact", 30},
			{"UserPromptSubmit", EventPrompt, "", 15},
			{"Stop", EventStop, "", 15},
			{"SessionEnd", EventSessionEnd, "", 5},
		},
		MCPType: true,
	}},
	{Codex, Config{
		HooksFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.CodexDir(), "hooks.json")
			}
			return filepath.Join(o.Root, ".codex", "hooks.json")
		},
		MCPFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.CodexDir(), "config.toml")
			}
			return filepath.Join(o.Root, ".codex", "config.toml")
		},
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.CodexDir(), "AGENTS.md")
			}
			return filepath.Join(o.Root, "AGENTS.md")
		},
		Hooks: []Hook{
			{"SessionStart", EventSessionStart, "startup|resume|clear", 30},
			{"UserPromptSubmit", EventPrompt, "", 15},
			{"Stop", EventStop, "", 15},
			{"SessionEnd", EventSessionEnd, "", 2},
		},
		TOML: true,
	}},
	{Gemini, Config{
		HooksFile: func(o Scope) string { return filepath.Join(o.base(".gemini", ".gemini"), "settings.json") },
		MCPFile:   func(o Scope) string { return filepath.Join(o.base(".gemini", ".gemini"), "settings.json") },
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".gemini", "GEMINI.md")
			}
			return filepath.Join(o.Root, "GEMINI.md")
		},
		// Gemini compares lifecycle matchers to the source as an exact
		// string (no regex, no alternation), so SessionStart has none: it
		// fires on startup, resume and clear alike.
		Hooks: []Hook{
			{"SessionStart", EventSessionStart, "", 30000},
			{"BeforeAgent", EventPrompt, "", 15000},
			{"SessionEnd", EventSessionEnd, "", 5000},
		},
		Named: true,
	}},
	// Qwen Code reads Claude-shaped hooks (timeouts in seconds) and MCP
	// servers from its settings.json, like the Gemini CLI it forked from.
	// Its -p runs fire Stop but never SessionEnd, so the Stop hook writes
	// the session note (see docs/agents.md).
	{Qwen, Config{
		HooksFile: func(o Scope) string { return filepath.Join(o.base(".qwen", ".qwen"), "settings.json") },
		MCPFile:   func(o Scope) string { return filepath.Join(o.base(".qwen", ".qwen"), "settings.json") },
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".qwen", "QWEN.md")
			}
			return filepath.Join(o.Root, "QWEN.md")
		},
		Hooks: []Hook{
			{"SessionStart", EventSessionStart, "", 30},
			{"UserPromptSubmit", EventPrompt, "", 15},
			{"Stop", EventStop, "", 15},
			{"SessionEnd", EventSessionEnd, "", 5},
		},
		MCPAlwaysLoad: true,
	}},
	// The Copilot CLI reads Claude-shaped hook files (PascalCase events get
	// snake_case payloads) from .github/hooks/ and ~/.copilot/hooks/, and
	// workspace MCP servers from .github/mcp.json (.mcp.json is Claude
	// Code's, which installs there too).
	{Copilot, Config{
		HooksFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".copilot", "hooks", "git-mem.json")
			}
			return filepath.Join(o.Root, ".github", "hooks", "git-mem.json")
		},
		MCPFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".copilot", "mcp-config.json")
			}
			return filepath.Join(o.Root, ".github", "mcp.json")
		},
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.Home, ".copilot", "copilot-instructions.md")
			}
			return filepath.Join(o.Root, ".github", "copilot-instructions.md")
		},
		Hooks: []Hook{
			{"SessionStart", EventSessionStart, "", 30},
			{"UserPromptSubmit", EventPrompt, "", 15},
			{"SessionEnd", EventSessionEnd, "", 5},
		},
		MCPType: true,
	}},
	// OpenCode has no command hooks: git-mem's plugin runs them.
	{OpenCode, Config{
		HooksFile: func(o Scope) string { return filepath.Join(o.OpenCodeDir(), "plugins", "git-mem.js") },
		MCPFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.OpenCodeDir(), "opencode.json")
			}
			return filepath.Join(o.Root, "opencode.json")
		},
		InstructionsFile: func(o Scope) string {
			if o.User {
				return filepath.Join(o.OpenCodeDir(), "AGENTS.md")
			}
			return filepath.Join(o.Root, "AGENTS.md")
		},
		Hooks: []Hook{
			{"session-start", EventSessionStart, "", 0},
			{"prompt", EventPrompt, "", 0},
			{"session-end", EventSessionEnd, "", 0},
		},
		OpenCode: true,
	}},
	{Cursor, Config{
		HooksFile: func(o Scope) string { return filepath.Join(o.base(".cursor", ".cursor"), "hooks.json") },
		MCPFile:   func(o Scope) string { return filepath.Join(o.base(".cursor", ".cursor"), "mcp.json") },
		InstructionsFile: func(o Scope) string {
			if o.User {
				return "" // Cursor's user rules live in its settings, not in a file
			}
			return filepath.Join(o.Root, "AGENTS.md")
		},
		Hooks: []Hook{
			{"sessionStart", EventSessionStart, "", 0},
			{"beforeSubmitPrompt", EventPrompt, "", 0},
			{"stop", EventStop, "", 0},
			{"sessionEnd", EventSessionEnd, "", 0},
		},
		Flat: true,
	}},
}
