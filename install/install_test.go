package install_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

// Realistic config files that already hold other tools' hooks and MCP
// servers, in the indentation their tools write.
const (
	claudeSettings = `{
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm test:*)"
    ]
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/env-check.sh"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "npx prettier --write \"$CLAUDE_FILE_PATHS\"",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`
	claudeMCP = `{
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_TOKEN": "${GITHUB_TOKEN}"
      }
    }
  }
}
`
	codexHooks = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "shell",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/policy-check",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`
	codexConfig = `model = "gpt-5-codex"
approval_policy = "on-request"

# docs server
[mcp_servers.docs]
command = "npx"
args = ["-y", "mcp-docs"]

[mcp_servers.docs.env]
DOCS_DIR = "docs"

[profiles.fast]
model = "gpt-5-mini"
`
	geminiSettings = `{
    "theme": "GitHub",
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "run_shell_command",
                "hooks": [
                    {
                        "type": "command",
                        "name": "audit",
                        "command": "audit-shell",
                        "timeout": 5000
                    }
                ]
            }
        ]
    },
    "mcpServers": {
        "jira": {
            "command": "jira-mcp",
            "args": [],
            "trust": false
        }
    }
}
`
	cursorHooks  = "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"afterFileEdit\": [\n\t\t\t{\n\t\t\t\t\"command\": \"./hooks/format.sh\"\n\t\t\t}\n\t\t],\n\t\t\"stop\": [\n\t\t\t{\n\t\t\t\t\"command\": \"./hooks/notify.sh\"\n\t\t\t}\n\t\t]\n\t}\n}\n"
	cursorMCP    = "{\n\t\"mcpServers\": {\n\t\t\"postgres\": {\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\n\t\t\t\t\"-y\",\n\t\t\t\t\"@modelcontextprotocol/server-postgres\"\n\t\t\t]\n\t\t}\n\t}\n}\n"
	agentsMD     = "# Contributing\n\nRun `make test` before pushing.\n"
	qwenSettings = `{
  "model": {
    "name": "qwen3-coder-plus"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^run_shell_command$",
        "hooks": [
          {
            "type": "command",
            "command": "\"$QWEN_PROJECT_DIR/.qwen/hooks/security-check.sh\"",
            "timeout": 10
          }
        ]
      }
    ]
  },
  "mcpServers": {
    "docs": {
      "command": "python",
      "args": [
        "-m",
        "docs_server"
      ],
      "trust": false
    }
  }
}
`
	openCodeConfig = `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    "jira": {
      "type": "remote",
      "url": "https://jira.example.com/mcp",
      "enabled": true
    }
  }
}
`
	copilotMCP = `{
  "mcpServers": {
    "playwright": {
      "type": "local",
      "command": "npx",
      "args": [
        "@playwright/mcp@latest"
      ],
      "tools": [
        "*"
      ]
    }
  }
}
`
)

func TestInstallRoundTrip(t *testing.T) {
	isolate(t)
	type file struct{ rel, content string }
	cases := []struct {
		agent    string
		user     bool
		existing []file
		// created are files install creates (uninstall removes them)
		created []string
		// own are strings install writes somewhere
		own []string
	}{
		{agents.Claude, false,
			[]file{{".claude/settings.json", claudeSettings}, {".mcp.json", claudeMCP}, {"CLAUDE.md", agentsMD}},
			nil, []string{`"command": "sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook session-start --agent claude'"`, `"matcher": "startup|resume|clear|compact"`, `"git-mem": {`}},
		{agents.Claude, true, nil,
			[]string{"home/.claude/settings.json", "home/.claude.json", "home/.claude/CLAUDE.md"}, nil},
		{agents.Codex, false,
			[]file{{".codex/hooks.json", codexHooks}, {".codex/config.toml", codexConfig}, {"AGENTS.md", agentsMD}},
			nil, []string{`"command": "sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook session-end --agent codex'"`, "[mcp_servers.git-mem]\ncommand = \"git-mem\"\nargs = [\"mcp\"]"}},
		{agents.Codex, true,
			[]file{{"codex-home/config.toml", codexConfig}},
			[]string{"codex-home/hooks.json", "codex-home/AGENTS.md"}, nil},
		{agents.Gemini, false,
			[]file{{".gemini/settings.json", geminiSettings}},
			[]string{"GEMINI.md"}, []string{`"BeforeAgent": [`, `"timeout": 30000`, `"name": "git-mem-session-start"`}},
		{agents.Cursor, false,
			[]file{{".cursor/hooks.json", cursorHooks}, {".cursor/mcp.json", cursorMCP}, {"AGENTS.md", agentsMD}},
			nil, []string{"\t\t\"sessionStart\": [\n\t\t\t{\n\t\t\t\t\"command\": \"sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook session-start --agent cursor'\"", `"./hooks/notify.sh"`}},
		{agents.Cursor, true, nil, []string{"home/.cursor/hooks.json", "home/.cursor/mcp.json"}, nil},
		{agents.Qwen, false,
			[]file{{".qwen/settings.json", qwenSettings}, {"QWEN.md", agentsMD}},
			nil, []string{`"command": "sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook prompt --agent qwen'"`, `"UserPromptSubmit": [`, `"alwaysLoadTools": true`, `"timeout": 30`}},
		{agents.Qwen, true, nil, []string{"home/.qwen/settings.json", "home/.qwen/QWEN.md"}, nil},
		{agents.Copilot, false,
			[]file{{".github/mcp.json", copilotMCP}, {".github/copilot-instructions.md", agentsMD}},
			[]string{".github/hooks/git-mem.json"}, []string{`"command": "sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook session-start --agent copilot'"`, `"SessionEnd": [`, `"type": "stdio"`}},
		{agents.Copilot, true, nil,
			[]string{"home/.copilot/hooks/git-mem.json", "home/.copilot/mcp-config.json", "home/.copilot/copilot-instructions.md"}, nil},
		{agents.OpenCode, false,
			[]file{{"opencode.json", openCodeConfig}, {"AGENTS.md", agentsMD}},
			[]string{".opencode/plugins/git-mem.js"}, []string{`"session-start": "sh -c 'command -v git-mem >/dev/null 2>&1 || exit 0; exec git-mem hook session-start --agent opencode'"`, `"type": "local"`, "\"command\": [\n        \"git-mem\",\n        \"mcp\"\n      ]"}},
		{agents.OpenCode, true, nil,
			[]string{"home/.config/opencode/plugins/git-mem.js", "home/.config/opencode/opencode.json", "home/.config/opencode/AGENTS.md"}, nil},
	}
	for _, c := range cases {
		name := c.agent
		if c.user {
			name += "-user"
		}
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			o := install.InstallOptions{Agent: c.agent, User: c.user, Root: root, Home: filepath.Join(base, "home"), CodexHome: filepath.Join(base, "codex-home"), Binary: "/opt/old/bin/git-mem"}
			abs := func(rel string) string {
				if strings.HasPrefix(rel, "home/") || strings.HasPrefix(rel, "codex-home/") {
					return filepath.Join(base, rel)
				}
				return filepath.Join(root, rel)
			}
			for _, f := range c.existing {
				write(t, filepath.Dir(abs(f.rel)), filepath.Base(f.rel), f.content)
			}
			ctx := context.Background()
			// an old install at another path, then a re-install: updated in place
			_, err := install.Install(ctx, o)
			require.NoError(t, err)
			o.Binary = "git-mem"
			rep, err := install.Install(ctx, o)
			require.NoError(t, err)
			if c.agent == agents.Codex {
				require.NotEmpty(t, rep.Notes, "Codex hook trust is explained")
			}
			all := ""
			for _, fc := range rep.Files {
				data, err := os.ReadFile(fc.Path)
				require.NoError(t, err)
				s := string(data)
				all += s
				require.NotContains(t, s, "/opt/old/bin", "re-install replaced the old entries in %s", fc.Path)
				if strings.HasSuffix(fc.Path, ".json") {
					require.True(t, json.Valid(data), "%s stays valid JSON", fc.Path)
				}
				require.LessOrEqual(t, strings.Count(s, install.InstructionsEnd), 1)
			}
			for _, f := range c.existing {
				data, err := os.ReadFile(abs(f.rel))
				require.NoError(t, err)
				for _, line := range strings.Split(f.content, "\n") {
					if strings.Contains(line, `"command"`) || strings.Contains(line, "command =") || strings.HasPrefix(line, "Run ") {
						require.Contains(t, string(data), line, "other tools' entries are kept, indentation included")
					}
				}
			}
			for _, s := range c.own {
				require.Contains(t, all, s)
			}
			for _, rel := range c.created {
				require.FileExists(t, abs(rel))
			}
			// a third run changes nothing
			rep, err = install.Install(ctx, o)
			require.NoError(t, err)
			for _, fc := range rep.Files {
				require.Equal(t, "unchanged", fc.Action, fc.Path)
			}
			in, err := install.Inspect(o)
			require.NoError(t, err)
			require.True(t, in.Hooks && in.MCP)

			_, err = install.Uninstall(ctx, o)
			require.NoError(t, err)
			for _, f := range c.existing {
				data, err := os.ReadFile(abs(f.rel))
				require.NoError(t, err)
				require.Equal(t, f.content, string(data), "uninstall restores %s", f.rel)
			}
			for _, rel := range c.created {
				require.NoFileExists(t, abs(rel), "uninstall removes the files it created")
			}
			in, err = install.Inspect(o)
			require.NoError(t, err)
			require.False(t, in.Hooks || in.MCP)
		})
	}
}

func TestInstallRefusesBrokenJSON(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	const broken = "{ // a comment is fine, a missing value is not\n  \"theme\": \n}"
	write(t, filepath.Join(root, ".claude"), "settings.json", broken)
	_, err := install.Install(context.Background(), install.InstallOptions{Agent: "claude", Root: root, Home: t.TempDir()})
	require.ErrorContains(t, err, "not valid JSON")
	data, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	require.Equal(t, broken, string(data), "a file that cannot be parsed is left alone")
}

func TestInstructionsBlock(t *testing.T) {
	cases := []struct{ name, in string }{
		{"empty", ""},
		{"no block", "# Project\n\nText.\n"},
		{"old block", "# Project\n\n" + install.InstructionsBegin + "\nold text\n" + install.InstructionsEnd + "\n\nAfter.\n"},
		{"two blocks", "A\n" + install.InstructionsBegin + "\nx\n" + install.InstructionsEnd + "\nB\n" + install.InstructionsBegin + "\ny\n" + install.InstructionsEnd + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := string(install.SetInstructions([]byte(c.in)))
			require.Equal(t, 1, strings.Count(out, install.InstructionsEnd))
			require.Contains(t, out, "not truth")
			require.Contains(t, out, "300 characters")
			require.Contains(t, out, "Never store secrets")
			require.Equal(t, out, string(install.SetInstructions([]byte(out))), "idempotent")
			back := string(install.RemoveInstructions([]byte(out)))
			require.NotContains(t, back, "git-mem")
			if c.name == "no block" {
				require.Equal(t, c.in, back)
			}
		})
	}
}

func TestIsOwnCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git-mem hook session-start --agent claude":                true,
		"/home/u/go/bin/git-mem hook prompt --agent codex":         true,
		"'/Applications/My Tools/git-mem' hook stop --agent codex": true,
		"git mem hook session-end":                                 true,
		"/opt/build/gm hook session-start --agent gemini":          true,
		"git-mem-hook prompt --agent claude":                       true,
		"/usr/local/bin/git-mem-hook session-start --agent codex":  true,
		"'/Applications/My Tools/git-mem-hook' stop --agent codex": true,
		"git-mem-hook --version":                                   false,
		"other-tool hook":                                          false,
		"git-mem recall -- x":                                      false,
	} {
		require.Equal(t, want, install.IsOwnCommand(cmd), cmd)
	}
}

func TestUninstallKeepsSharedInstructions(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	ctx := context.Background()
	o := func(agent string) install.InstallOptions {
		return install.InstallOptions{Agent: agent, Root: root, Home: t.TempDir(), Binary: "git-mem"}
	}
	for _, a := range []string{agents.Codex, agents.Cursor} {
		_, err := install.Install(ctx, o(a))
		require.NoError(t, err)
	}
	_, err := install.Uninstall(ctx, o(agents.Cursor))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	require.NoError(t, err, "Codex still reads AGENTS.md")
	require.Contains(t, string(data), install.InstructionsBegin)
	_, err = install.Uninstall(ctx, o(agents.Codex))
	require.NoError(t, err)
	require.NoFileExists(t, filepath.Join(root, "AGENTS.md"))
}

// TestInstallHookBinary: with git-mem-hook beside git-mem, the hooks run it;
// switching between the two forms updates the entries in place, and
// uninstall and Inspect recognise both.
func TestInstallHookBinary(t *testing.T) {
	isolate(t)
	for _, agent := range agents.Names {
		t.Run(agent, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			require.NoError(t, os.MkdirAll(root, 0o755))
			o := install.InstallOptions{Agent: agent, Root: root, Home: filepath.Join(base, "home"), CodexHome: filepath.Join(base, "codex-home"), Binary: "git-mem"}
			ctx := context.Background()
			_, err := install.Install(ctx, o)
			require.NoError(t, err)
			o.HookBinary = "/opt/bin/git-mem-hook"
			_, err = install.Install(ctx, o)
			require.NoError(t, err)
			in, err := install.Inspect(o)
			require.NoError(t, err)
			require.True(t, in.Hooks)
			hookCmds := 0
			for _, c := range in.Commands {
				require.NotContains(t, c, "git-mem hook", "the old form was replaced, not duplicated")
				if strings.HasPrefix(c, "/opt/bin/git-mem-hook ") {
					hookCmds++
					require.Regexp(t, `^/opt/bin/git-mem-hook [a-z-]+ --agent `+agent+`$`, c)
				}
			}
			require.Equal(t, len(in.Events), hookCmds)
			_, err = install.Uninstall(ctx, o)
			require.NoError(t, err)
			in, err = install.Inspect(o)
			require.NoError(t, err)
			require.False(t, in.Hooks)
			require.False(t, in.MCP)
		})
	}
}

// TestInstallGeminiSessionStartMatcher: the Gemini CLI (0.61.0) compares a
// lifecycle matcher to the SessionStart source as an exact string, so a
// regex-style "startup|resume|clear" never matches and the hook never runs.
// Install writes no matcher, and drops the one an earlier install wrote.
func TestInstallGeminiSessionStartMatcher(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	o := install.InstallOptions{Agent: agents.Gemini, Root: root, Home: t.TempDir(), Binary: "git-mem"}
	sessionStart := func() []map[string]any {
		data, err := os.ReadFile(filepath.Join(root, ".gemini", "settings.json"))
		require.NoError(t, err)
		var s struct {
			Hooks map[string][]map[string]any `json:"hooks"`
		}
		require.NoError(t, json.Unmarshal(data, &s))
		return s.Hooks["SessionStart"]
	}
	_, err := install.Install(context.Background(), o)
	require.NoError(t, err)
	groups := sessionStart()
	require.Len(t, groups, 1)
	require.NotContains(t, groups[0], "matcher", "no matcher: every source (startup, resume, clear)")

	old := `{"hooks":{"SessionStart":[{"matcher":"startup|resume|clear","hooks":[{"type":"command","command":"git-mem hook session-start --agent gemini","name":"git-mem-session-start","timeout":30000}]},` +
		`{"matcher":"startup","hooks":[{"type":"command","command":"notify-start"}]}]}}`
	write(t, filepath.Join(root, ".gemini"), "settings.json", old)
	_, err = install.Install(context.Background(), o)
	require.NoError(t, err)
	groups = sessionStart()
	require.Len(t, groups, 2)
	require.NotContains(t, groups[0], "matcher", "the earlier install's matcher is dropped")
	require.Equal(t, "startup", groups[1]["matcher"], "other groups keep theirs")
}
