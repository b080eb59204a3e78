package cmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runStdin runs one command line with stdin and an environment, from the
// home directory: hooks take the repository from the payload, never from
// the directory they run in.
func (sb *sandbox) runStdin(stdin string, env map[string]string, args ...string) (string, string, int) {
	return sb.runWith(sb.home, stdin, env, args...)
}

func TestCLIHookAlwaysExitsZero(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	mustRun(t, sb, "add", "--type", "preference", "--", "Prefer small pull requests")
	start, _ := json.Marshal(map[string]any{"session_id": "c1", "cwd": sb.repo, "hook_event_name": "SessionStart", "source": "startup", "transcript_path": "/t.jsonl"})
	cursor, _ := json.Marshal(map[string]any{"conversation_id": "c2", "workspace_roots": []string{sb.repo}, "hook_event_name": "sessionStart"})
	cases := []struct {
		name, stdin string
		args        []string
		env         map[string]string
		want        string // in stdout; "" means stdout must be empty
	}{
		{"session start", string(start), []string{"hook", "session-start"}, nil, `"hookEventName":"SessionStart"`},
		{"cursor", string(cursor), []string{"hook", "session-start"}, nil, `"additional_context"`},
		{"garbage", "}{", []string{"hook", "prompt"}, nil, ""},
		{"empty", "", []string{"hook", "session-end"}, nil, ""},
		{"unknown event", string(start), []string{"hook", "post-everything"}, nil, ""},
		{"no event", string(start), []string{"hook"}, nil, ""},
		{"unknown flag", string(start), []string{"hook", "stop", "--future-flag"}, nil, ""},
		{"agent without a value", string(start), []string{"hook", "prompt", "--agent"}, nil, ""},
		{"agent without a value before the event", string(start), []string{"hook", "--agent", "--", "prompt"}, nil, ""},
		{"empty agent", string(start), []string{"hook", "prompt", "--agent="}, nil, ""},
		{"unknown shorthand flag", string(start), []string{"hook", "prompt", "-z"}, nil, ""},
		{"flag with a bad value", string(start), []string{"hook", "prompt", "--agent", "nobody", "--deadline=-5"}, nil, ""},
		{"directory flag", string(start), []string{"-C", "/nonexistent", "hook", "session-end", "--agent"}, nil, ""},
		{"agent flag with a value", strings.Replace(string(start), `"c1"`, `"c3"`, 1), []string{"hook", "session-start", "--agent", "claude"}, nil, `"hookEventName":"SessionStart"`},
		{"event after a flag", strings.Replace(string(start), `"c1"`, `"c4"`, 1), []string{"hook", "--agent=claude", "session-start"}, nil, `"hookEventName":"SessionStart"`},
		{"debug to stderr only", "x", []string{"hook", "prompt"}, map[string]string{"GIT_MEM_DEBUG": "1"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, code := sb.runStdin(c.stdin, c.env, c.args...)
			require.Equal(t, 0, code)
			if c.want == "" {
				require.Empty(t, out)
				return
			}
			require.Contains(t, out, c.want)
			require.True(t, json.Valid([]byte(out)))
			require.Contains(t, out, "Prefer small pull requests")
		})
	}
}
