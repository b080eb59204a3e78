package agents_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
)

func TestDetect(t *testing.T) {
	none := func(string) string { return "" }
	cases := []struct {
		name string
		p    agents.Payload
		env  map[string]string
		want string
	}{
		{"cursor by conversation", agents.Payload{ConversationID: "c"}, nil, agents.Cursor},
		{"cursor by roots", agents.Payload{WorkspaceRoots: []string{"/x"}}, nil, agents.Cursor},
		{"gemini by event", agents.Payload{HookEventName: "BeforeAgent"}, nil, agents.Gemini},
		{"gemini by timestamp", agents.Payload{Timestamp: "t"}, nil, agents.Gemini},
		{"codex by turn", agents.Payload{TurnID: "t"}, nil, agents.Codex},
		{"codex by env", agents.Payload{}, map[string]string{"CODEX_HOME": "/c"}, agents.Codex},
		{"claude by env", agents.Payload{}, map[string]string{"CLAUDECODE": "1", "CODEX_HOME": "/c"}, agents.Claude},
		{"qwen by timestamp and permission mode", agents.Payload{Timestamp: "t", PermissionMode: "default"}, nil, agents.Qwen},
		{"qwen by env despite Gemini's", agents.Payload{Timestamp: "t"}, map[string]string{"QWEN_PROJECT_DIR": "/r", "GEMINI_PROJECT_DIR": "/r"}, agents.Qwen},
		{"copilot by prompt event", agents.Payload{Timestamp: "t", HookEventName: "UserPromptSubmit"}, nil, agents.Copilot},
		{"copilot by initial prompt", agents.Payload{Timestamp: "t", HookEventName: "SessionStart", InitialPrompt: "p"}, nil, agents.Copilot},
		{"copilot by session-end reason", agents.Payload{Timestamp: "t", HookEventName: "SessionEnd", Reason: "complete"}, nil, agents.Copilot},
		{"gemini session end", agents.Payload{Timestamp: "t", HookEventName: "SessionEnd", Reason: "exit"}, nil, agents.Gemini},
		{"copilot by env despite Claude's", agents.Payload{}, map[string]string{"COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": "/r"}, agents.Copilot},
		{"opencode by env", agents.Payload{}, map[string]string{"OPENCODE": "1"}, agents.OpenCode},
		{"default", agents.Payload{}, nil, agents.Claude},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := none
			if c.env != nil {
				getenv = func(k string) string { return c.env[k] }
			}
			require.Equal(t, c.want, agents.Detect(&c.p, getenv))
		})
	}
}

// TestInShell: a command typed in an agent's shell tool is recorded as the
// agent's; variables a user may set in every shell (CODEX_HOME) are not
// enough.
func TestParsePayload(t *testing.T) {
	cases := []struct {
		name, data string
		session    string // "": ParsePayload fails with ErrPayload, saying err
		err        string
	}{
		{"claude", `{"session_id":"s1","cwd":"/r","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, "s1", ""},
		{"blanks around", " \n\t{\"session_id\":\"s2\"}\r\n ", "s2", ""},
		{"unknown fields and null", `{"session_id":"s3","model":{"id":"x"},"transcript_path":null}`, "s3", ""},
		{"cursor", `{"conversation_id":"c1","workspace_roots":["/r"]}`, "c1", ""},
		{"empty", "", "", "empty hook payload"},
		{"blanks", " \n\t ", "", "empty hook payload"},
		{"array", `[{"session_id":"s"}]`, "", "not a JSON object"},
		{"binary", "\x7fELF\x02\x01\x00", "", "not a JSON object"},
		{"cut short", `{"session_id":"s`, "", "not valid JSON"},
		{"trailing garbage", `{"session_id":"s"} x`, "", "not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := agents.ParsePayload([]byte(tc.data))
			if tc.session == "" {
				require.ErrorIs(t, err, agents.ErrPayload)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.session, p.Session())
		})
	}
}

func TestInShell(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"claude", map[string]string{"CLAUDECODE": "1"}, agents.Claude},
		{"gemini", map[string]string{"GEMINI_CLI": "1"}, agents.Gemini},
		{"codex sandbox", map[string]string{"CODEX_SANDBOX": "seatbelt"}, agents.Codex},
		{"codex thread", map[string]string{"CODEX_THREAD_ID": "t"}, agents.Codex},
		{"codex home alone", map[string]string{"CODEX_HOME": "/c"}, ""},
		{"gemini project dir alone", map[string]string{"GEMINI_PROJECT_DIR": "/p"}, ""},
		{"copilot", map[string]string{"COPILOT_CLI": "1"}, agents.Copilot},
		{"opencode", map[string]string{"OPENCODE": "1"}, agents.OpenCode},
		{"qwen project dir alone", map[string]string{"QWEN_PROJECT_DIR": "/p"}, ""},
		{"none", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, agents.InShell(func(k string) string { return c.env[k] }))
		})
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"claude-code": agents.Claude, " Codex-CLI ": agents.Codex, "cursor": agents.Cursor, "gemini-cli": agents.Gemini, "qwen-code": agents.Qwen, "copilot": agents.Copilot, "opencode": agents.OpenCode, "vim": ""} {
		require.Equal(t, want, agents.Normalize(in), in)
	}
	require.Equal(t, "claude-code", agents.WriterName(agents.Claude))
	require.Equal(t, agents.Codex, agents.WriterName(agents.Codex))
}

func TestFromClientName(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code":                 "claude-code",
		"Claude Code":                 "claude-code",
		"claude-ai":                   "claude-desktop",
		"codex-mcp-client":            "codex",
		"Codex":                       "codex",
		"cursor-vscode":               "cursor",
		"gemini-cli-mcp-client":       "gemini",
		"qwen-cli-mcp-client-git-mem": "qwen",
		"Visual Studio Code":          "vscode",
		"zed":                         "zed",
		"Authorized Tool":             "authorized-tool",
		"my agent/2.0 (beta)":         "my-agent-2.0-beta",
		"":                            "",
		"  ":                          "",
		strings.Repeat("x", 60):       strings.Repeat("x", 40),
		"tsclient e2e ✓ unicode":      "tsclient-e2e-unicode",
	} {
		require.Equal(t, want, agents.FromClientName(in), "FromClientName(%q)", in)
	}
}

func TestNormalizeEvent(t *testing.T) {
	cases := map[string]string{
		"session-start": agents.EventSessionStart, "SessionStart": agents.EventSessionStart, " session_start ": agents.EventSessionStart,
		"prompt": agents.EventPrompt, "UserPromptSubmit": agents.EventPrompt, "BeforeAgent": agents.EventPrompt, "beforeSubmitPrompt": agents.EventPrompt,
		"session-end": agents.EventSessionEnd, "SessionEnd": agents.EventSessionEnd, "session_end": agents.EventSessionEnd,
		"stop": agents.EventStop, "Stop": agents.EventStop, "AfterAgent": agents.EventStop,
		"": "", "warm": "", "PreToolUse": "", "session start": "",
	}
	for arg, want := range cases {
		require.Equal(t, want, agents.NormalizeEvent(arg), "%q", arg)
	}
}

// TestConfigOf: every agent git mem install knows has its configuration,
// found by any name Normalize accepts; others have none.
func TestConfigOf(t *testing.T) {
	files := map[string]string{}
	for _, name := range agents.Names {
		c, ok := agents.ConfigOf(name)
		require.True(t, ok, name)
		require.NotNil(t, c.HooksFile, name)
		require.NotEmpty(t, c.Hooks, name)
		f := c.HooksFile(agents.Scope{Root: "/r", Home: "/h"})
		require.NotContains(t, files, f, "%s's hooks file is %s's too", name, files[f])
		files[f] = name
		upper, ok := agents.ConfigOf(" " + strings.ToUpper(name) + " ")
		require.True(t, ok, name)
		require.Equal(t, c.Hooks, upper.Hooks, name)
	}
	c, ok := agents.ConfigOf("claude-code")
	require.True(t, ok)
	claude, _ := agents.ConfigOf(agents.Claude)
	require.Equal(t, claude.Hooks, c.Hooks)
	_, ok = agents.ConfigOf("windsurf")
	require.False(t, ok)
	_, ok = agents.ConfigOf("")
	require.False(t, ok)
}
