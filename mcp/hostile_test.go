package mcp

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// plantDoc commits raw data as memory id on refs/memory/main of dir with git
// plumbing, as a hand edit or a teammate's clone could leave it.
func plantDoc(t *testing.T, dir, id, data string) {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	run := func(stdin string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(c.Environ(), "GIT_INDEX_FILE="+index)
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	blob := run(data, "hash-object", "-w", "--stdin")
	parent := run("", "rev-parse", "--verify", "-q", "refs/memory/main")
	run("", "read-tree", parent)
	run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+",memories/"+id[:2]+"/"+id+".json")
	commit := run("mem: add planted\n", "commit-tree", run("", "write-tree"), "-p", parent)
	run("", "update-ref", "refs/memory/main", commit, parent)
}

// TestToolsInvalidDocument: tools keep working on a store holding an
// invalid document; show says what is wrong and how to remove it, history
// shows it, forget removes it.
func TestToolsInvalidDocument(t *testing.T) {
	repo := newRepo(t)
	seed(t, repo, gitstore.Memory{ID: "aaaa000000000001", Text: "Webhooks are verified with the signing secret"})
	bad := "3f2a9c41d0e8b7a2"
	plantDoc(t, repo, bad, `{"schema":1,"id":"`+bad+`","type":"fact","text":"x","anchor":{"commit":"abc"}`)
	c := connect(t, Options{Dir: repo}, "test-client", repo)

	res := c.call(ToolList, map[string]any{})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "Webhooks are verified")
	res = c.call(ToolRecall, map[string]any{"query": "webhook signing secret"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "Webhooks are verified")

	res = c.call(ToolShow, map[string]any{"id": "3f2a9c"})
	require.True(t, res.IsError)
	require.Contains(t, resultText(res), "memories/3f/"+bad+".json is invalid")
	require.Contains(t, resultText(res), "memory_forget "+bad)

	res = c.call(ToolHistory, map[string]any{"id": "3f2a9c"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "(invalid document: not a JSON memory document")

	res = c.call(ToolForget, map[string]any{"id": "3f2a9c"})
	require.False(t, res.IsError, resultText(res))
	require.NotContains(t, gitRun(t, repo, "ls-tree", "-r", "--name-only", "refs/memory/main"), bad)
}

// TestToolsAddRefusesControlsAndLimits: memory_add refuses control
// characters in paths, CR in text, and too many or too long paths and tags.
func TestToolsAddRefusesControlsAndLimits(t *testing.T) {
	repo := newRepo(t)
	c := connect(t, Options{Dir: repo}, "test-client", repo)
	many := func(n int, f func(i int) string) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, f(i))
		}
		return out
	}
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"ESC in a path", map[string]any{"paths": []string{"src/\x1b]0;pwned\x07.go"}}, "control characters"},
		{"C1 in a path", map[string]any{"paths": []string{"src/\u009b.go"}}, "control characters"},
		{"ESC in a tag", map[string]any{"tags": []string{"a\x1b[31m"}}, "tags use letters"},
		{"CR in the text", map[string]any{"text": "one\r\ntwo"}, "carriage return"},
		{"51 paths", map[string]any{"paths": many(51, func(i int) string { return "f" + strings.Repeat("x", i) })}, "51 paths, over the maximum of 50"},
		{"a 513-byte path", map[string]any{"paths": []string{strings.Repeat("d/", 256) + "f"}}, "512-byte maximum"},
		{"21 tags", map[string]any{"tags": many(21, func(i int) string { return "t" + strings.Repeat("x", i) })}, "21 tags, over the maximum of 20"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"text": "A memory with bad metadata"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := c.call(ToolAdd, args)
			require.True(t, res.IsError, resultText(res))
			require.Contains(t, resultText(res), tc.want)
			require.NotContains(t, resultText(res), "\x1b")
		})
	}
	out := strings.TrimSpace(gitRun(t, repo, "for-each-ref", "refs/memory/"))
	require.Empty(t, out, "nothing was written")
}
