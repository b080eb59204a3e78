package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
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
		{[]string{"prompt", "--agent="}, "prompt", ""},
		{[]string{"-C", "/some/dir", "hook", "prompt", "--agent", "claude"}, "prompt", "claude"},
		{[]string{"--directory", "x", "stop"}, "stop", ""},
		{[]string{"-Cx", "stop", "-agent", "codex", "extra"}, "stop", "codex"},
		{[]string{"prompt", "--", "--agent", "x"}, "prompt", ""},
	}
	for _, tc := range cases {
		event, agent := hooks.ParseArgs(tc.args)
		require.Equal(t, tc.event, event, "%v", tc.args)
		require.Equal(t, tc.agent, agent, "%v", tc.args)
	}
}
