package mcp

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// TestWritesFoldAfterAnswering checks that a server's writes keep the
// recall snapshot's delta within its fold size, folding it after the call
// has answered (the call itself only appends), and that recall finds the
// memories saved on both sides of a fold.
func TestWritesFoldAfterAnswering(t *testing.T) {
	dir := newRepo(t)
	c := connect(t, Options{Dir: dir}, "claude-code", dir)
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	delta := set.Repo.Mem().SnapshotDelta()
	subjects := []string{"billing", "search", "export", "upload", "mailer"}
	folds, appended := 0, false
	const adds = 80
	for i := range adds {
		text := fmt.Sprintf("The %s worker %d retries a failed job after %d seconds", subjects[i%len(subjects)], i, 10+i)
		res := c.call(ToolAdd, map[string]any{"text": text})
		require.False(t, res.IsError, resultText(res))
		c.srv.after.Wait()
		require.False(t, index.FoldDue(set), "the delta is past its fold size after add %d", i)
		if _, err := os.Stat(delta); err == nil {
			appended = true
		} else if appended {
			folds++
			appended = false
		}
	}
	require.Positive(t, folds, "%d adds never folded the snapshot", adds)
	for _, i := range []int{0, adds / 2, adds - 1} {
		res := c.call(ToolRecall, map[string]any{"query": fmt.Sprintf("%s worker %d retries", subjects[i%len(subjects)], i)})
		require.False(t, res.IsError, resultText(res))
		require.Contains(t, resultText(res), fmt.Sprintf("after %d seconds", 10+i))
	}
}
