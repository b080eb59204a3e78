package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecallAfterAdds checks that memory_recall finds each memory the
// adds before it saved: a write's duplicate check leaves the bleve index
// alone, so the recall brings the index over every add since it was last
// read, several at once.
func TestRecallAfterAdds(t *testing.T) {
	dir := newRepo(t)
	c := connect(t, Options{Dir: dir}, "claude-code", dir)
	res := c.call(ToolRecall, map[string]any{"query": "anything at all"})
	require.False(t, res.IsError, resultText(res))
	texts := map[string]string{
		"how are invoices numbered per tenant":             "Invoices are numbered per tenant, never globally",
		"stripe webhook handler answer time":               "The Stripe webhook handler must answer within 10 seconds",
		"when does the nightly cron job run on the worker": "The nightly cron job runs at 02:00 UTC on the worker",
	}
	for _, text := range texts {
		res := c.call(ToolAdd, map[string]any{"text": text})
		require.False(t, res.IsError, resultText(res))
	}
	for query, text := range texts {
		res := c.call(ToolRecall, map[string]any{"query": query})
		require.False(t, res.IsError, resultText(res))
		var out RecallOutput
		structured(t, res, &out)
		require.NotEmpty(t, out.Memories, query)
		require.Contains(t, out.Text, text, query)
	}
}
