package hooks_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/hooks"
)

// TestOutputIsEncodingJSONs: a hook's output is byte for byte what
// encoding/json writes for the agent's shape (HTML left unescaped), for
// text that needs escapes of every kind.
func TestOutputIsEncodingJSONs(t *testing.T) {
	encode := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(v))
		return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	type wrapped struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}
	for _, text := range []string{
		"Recorded memories: - [c40473, fact] plain",
		"quotes \" and \\ backslashes, <html> & ampersands",
		"controls \x00\x01\x08\x0c\n\r\t\x1f and \x7f",
		"line separators \u2028 \u2029, emoji 🦀, ünïcode",
		"invalid UTF-8 \xff\xfe and a cut rune \xe2\x82",
	} {
		for _, tc := range []struct {
			agent, event string
			want         string
		}{
			{agents.Claude, agents.EventSessionStart, encode(wrapped{specific{"SessionStart", text}})},
			{agents.Claude, agents.EventPrompt, encode(wrapped{specific{"UserPromptSubmit", text}})},
			{agents.Gemini, agents.EventPrompt, encode(wrapped{specific{"BeforeAgent", text}})},
			{agents.Cursor, agents.EventSessionStart, encode(map[string]string{"additional_context": text})},
			{agents.Copilot, agents.EventPrompt, encode(map[string]string{"additionalContext": text})},
		} {
			got, err := hooks.Output(tc.agent, tc.event, text)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got), "%s %s %q", tc.agent, tc.event, text)
			require.True(t, json.Valid(got))
		}
	}
}

// FuzzOutputIsEncodingJSONs: for any text, the output is what encoding/json
// writes for it (HTML left unescaped), and valid JSON.
func FuzzOutputIsEncodingJSONs(f *testing.F) {
	for _, s := range []string{"plain", "\"\\\x00\x08\x0c\n\r\t\x1f\x7f", "\u2028\u2029🦀", "\xff\xe2\x82", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(map[string]string{"additional_context": text}))
		got, err := hooks.Output(agents.Cursor, agents.EventSessionStart, text)
		require.NoError(t, err)
		if len(bytes.TrimSpace([]byte(text))) == 0 {
			require.Nil(t, got, "nothing to inject")
			return
		}
		require.Equal(t, string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), string(got))
		require.True(t, json.Valid(got))
	})
}
