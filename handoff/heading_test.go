package handoff

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestRecentMemoriesAreNotCalledRelevant: when the branch's (or the task's)
// words find no memory, session start and boot show the newest trusted
// memories under their own heading, never as relevant to the branch.
func TestRecentMemoriesAreNotCalledRelevant(t *testing.T) {
	set, st := bootRepo(t)
	ctx := context.Background()
	m, err := st.Add(ctx, gitstore.Writer{Agent: "claude-code"}, gitstore.NewMemory{Type: gitstore.TypeGotcha, Text: "The invoice exporter drops rows whose currency is unset"})
	require.NoError(t, err)
	cases := []struct {
		name, branch, task string
		want, notWant      string
	}{
		{"session start, branch words that find it", "fix/invoice-exporter", "", "Memories relevant to this branch", ""},
		{"session start, branch words that find nothing", "feature/kayak-waitlist", "", "Recent, trusted memories:", "Memories relevant"},
		{"session start, a branch without words", "main", "", "Recent, trusted memories:", "Memories relevant"},
		{"boot, a task that finds it", "main", "the invoice exporter loses rows", "Memories relevant to this task:", ""},
		{"boot, a task that finds nothing", "main", "add a waitlist for kayak rentals", "Recent, trusted memories:", "Memories relevant"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var text string
			if tc.task == "" {
				res, err := SessionStart(ctx, set, StartOptions{Branch: tc.branch, Now: bootNow})
				require.NoError(t, err)
				text = res.Text
			} else {
				res, err := Boot(ctx, set, BootOptions{Task: tc.task, Branch: tc.branch, Now: bootNow})
				require.NoError(t, err)
				text = res.Text
			}
			require.Contains(t, text, m.ID[:6])
			require.Contains(t, text, tc.want)
			if tc.notWant != "" {
				require.NotContains(t, text, tc.notWant)
			}
		})
	}
}
