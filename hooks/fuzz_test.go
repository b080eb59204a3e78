package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/hooks"
)

// FuzzHookPayload: whatever an agent (or anything else) writes on a hook's
// stdin, with whatever event and agent flags, the hook never panics, stops
// by its deadline, and prints nothing or one line of valid JSON. "{{CWD}}"
// in the input stands for a real repository with memories, so that inputs
// reach the session, injection and note code, not only the parser.
func FuzzHookPayload(f *testing.F) {
	isolateF(f)
	dir := newRepo(f, false)
	seed(f, dir, corpus(12)...)
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*", "*.json"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		f.Add(data, name[strings.Index(name, "-")+1:], filepath.Base(filepath.Dir(file)))
	}
	for _, s := range []string{"", "{}", "null", "[]", `{"cwd":"relative"}`, `{"cwd":"{{CWD}}"}`,
		`{"cwd":"{{CWD}}","session_id":"../../etc/passwd"}`, `{"cwd":"{{CWD}}","session_id":"s","prompt":"\u001b[31mred\u0007"}`,
		`{"workspace_roots":["{{CWD}}"],"conversation_id":"c"}`, `{"cwd":"{{CWD}}","session_id":"s","transcript_path":{"a":1}}`,
		`{"cwd":"{{CWD}}","session_id":"` + strings.Repeat("x", 5000) + `"}`, "{\"cwd\":\"{{CWD}}\"\x00}"} {
		for _, ev := range []string{agents.EventSessionStart, agents.EventPrompt, agents.EventStop, agents.EventSessionEnd, "SessionStart", "bogus", ""} {
			f.Add([]byte(s), ev, "")
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte, event, agent string) {
		cwd, _ := json.Marshal(filepath.ToSlash(dir))
		payload = bytes.ReplaceAll(payload, []byte("{{CWD}}"), bytes.Trim(cwd, `"`))
		var out bytes.Buffer
		start := time.Now()
		o := hooks.Run(context.Background(), hooks.Request{
			Event: event, Agent: agent, In: bytes.NewReader(payload), Out: &out,
			Now: fixedNow, Getenv: func(string) string { return "" }, Deadline: 3 * time.Second,
		})
		require.Less(t, time.Since(start), 5*time.Second, "a hook stops by its deadline")
		require.Equal(t, out.String(), string(o.Output))
		if out.Len() > 0 {
			require.True(t, json.Valid(out.Bytes()), "invalid JSON on stdout: %q", out.String())
			require.Equal(t, 1, bytes.Count(out.Bytes(), []byte("\n")), "one line of JSON")
		}
	})
}

// FuzzParseArgs: the hook's arguments never panic the parser, and what it
// returns is one of the arguments (or an --agent= value), never invented.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"prompt", "hook\x00prompt\x00--agent\x00codex", "--agent=gemini\x00session-start",
		"-C\x00dir\x00stop", "--\x00prompt", "--agent\x00--agent", "hook\x00hook", "\x00\x00", "--agent="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		event, agent := hooks.ParseArgs(args)
		if event != "" {
			require.True(t, slices.Contains(args, event), "event %q is one of the arguments", event)
		}
		if agent != "" {
			ok := slices.Contains(args, agent)
			for _, a := range args {
				ok = ok || strings.HasSuffix(a, "="+agent)
			}
			require.True(t, ok, "agent %q comes from the arguments", agent)
		}
	})
}

// isolateF is isolate for a fuzz target.
func isolateF(f *testing.F) {
	home := f.TempDir()
	f.Setenv("HOME", home)
	f.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	f.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	f.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f.Setenv("GIT_AUTHOR_NAME", "Ada")
	f.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	f.Setenv("GIT_COMMITTER_NAME", "Ada")
	f.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
}
