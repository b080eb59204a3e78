package handoff

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

func TestSubagentMemoriesAreNotInjectedByDefault(t *testing.T) {
	set, st := bootRepo(t)
	ctx := context.Background()
	main, err := st.Add(ctx, gitstore.Writer{Agent: "claude-code"}, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Use table-driven tests with testify require"})
	require.NoError(t, err)
	sub, err := st.Add(ctx, gitstore.Writer{Agent: "claude-code", Subagent: "Explore:agent-7"}, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer grep over reading whole files"})
	require.NoError(t, err)
	require.Equal(t, "Explore:agent-7", sub.Subagent)
	require.True(t, IsSubagent(sub))

	res, err := SessionStart(ctx, set, StartOptions{Branch: "main", Now: bootNow})
	require.NoError(t, err)
	require.Contains(t, res.Text, main.ID[:6])
	require.NotContains(t, res.Text, sub.ID[:6])

	res, err = SessionStart(ctx, set, StartOptions{Branch: "main", Now: bootNow, Subagents: true})
	require.NoError(t, err)
	require.Contains(t, res.Text, sub.ID[:6], "configurable: mem.injectSubagents")

	boot, err := Boot(ctx, set, BootOptions{Now: bootNow})
	require.NoError(t, err)
	require.NotContains(t, boot.Text, sub.ID[:6])
}
