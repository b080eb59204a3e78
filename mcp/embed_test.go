package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding/embedtest"
)

// TestRecallUsesEmbeddings: memory_add embeds what it saves, and
// memory_recall and memory_boot find it through the same recall path.
func TestRecallUsesEmbeddings(t *testing.T) {
	srv := embedtest.Start(t, map[string]string{"widget": "frobnicator", "keys": "credentials", "cycling": "rotate"})
	dir := newRepo(t)
	gitRun(t, dir, "config", "mem.embed.url", srv.URL)
	gitRun(t, dir, "config", "mem.embed.model", "stand-in")
	gitRun(t, dir, "config", "mem.embed.minScore", "0.6")
	c := connect(t, Options{Dir: dir}, "Test Client")
	res := c.call(ToolAdd, map[string]any{"text": "Rotate the frobnicator credentials every Tuesday.", "type": "fact", "source": "user"})
	require.False(t, res.IsError, resultText(res))
	_, inputs := srv.Counts()
	require.Equal(t, 1, inputs, "embedded when saved")

	res = c.call(ToolRecall, map[string]any{"query": "widget keys cycling"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "frobnicator credentials")

	res = c.call(ToolRecall, map[string]any{"query": "how do we bake sourdough bread"})
	require.False(t, res.IsError, resultText(res))
	require.NotContains(t, resultText(res), "frobnicator")

	// boot lists memories for any task; a match carries its confidence label
	res = c.call(ToolBoot, map[string]any{"task": "widget keys cycling"})
	require.False(t, res.IsError, resultText(res))
	require.Regexp(t, `likely match[^\]]*\] Rotate the frobnicator`, resultText(res))
	res = c.call(ToolBoot, map[string]any{"task": "sourdough bread baking"})
	require.NotRegexp(t, `likely match[^\]]*\] Rotate the frobnicator`, resultText(res))
}
