package index

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// In a store of a few memories, document frequencies cannot tell a question's
// subject from its incidentals: a memory answering part of the question is
// still found, and rarity ties never depend on word order.
func TestSmallStoreKeepsPartialAnswers(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	st, err := set.Writable(gitstore.ScopeProject)
	require.NoError(t, err)
	ctx := context.Background()
	var ids []string
	for _, text := range []string{
		"Prefer table-driven tests with testify require",
		"Refund webhook signatures fail when the raw request body is parsed before verification",
		"Staging webhooks use the signing secret of the staging endpoint, not production",
		"Done: refund event parsed. Next: persist refunds in the ledger. Warning: staging secret rotates on Fridays",
	} {
		m, err := st.Add(ctx, gitstore.Writer{}, gitstore.NewMemory{Text: text})
		require.NoError(t, err)
		ids = append(ids, m.ID)
	}
	r, err := Recall(ctx, set, Options{Query: "Why do refund webhooks fail signature verification in staging?", Exclude: map[string]bool{ids[1]: true}, NoStale: true})
	require.NoError(t, err)
	require.NotEmpty(t, r.Hits)
	require.Equal(t, ids[2], r.Hits[0].Memory.ID, "the staging memory answers the rest of the question")
}
