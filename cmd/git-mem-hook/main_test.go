package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseArgs(t *testing.T) {
	cases := []struct {
		args         []string
		event, agent string
	}{
		{[]string{"prompt", "--agent", "claude"}, "prompt", "claude"},
		{[]string{"session-start", "--agent=codex"}, "session-start", "codex"},
		{[]string{"hook", "stop", "--agent", "cursor"}, "stop", "cursor"},
		{[]string{"--agent", "gemini", "session-end"}, "session-end", "gemini"},
		{[]string{"prompt", "--unknown", "--agent"}, "prompt", ""},
		{nil, "", ""},
	}
	for _, tc := range cases {
		event, agent := parseArgs(tc.args)
		require.Equal(t, tc.event, event, "%v", tc.args)
		require.Equal(t, tc.agent, agent, "%v", tc.args)
	}
}
