package handoff

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

func TestNoteKeys(t *testing.T) {
	long := strings.Repeat("x", gitstore.MaxKeyBytes+1)
	tests := []struct {
		name string
		a    Activity
		want []string
	}{
		{
			name: "identifiers of the subjects, then file names, then directories",
			a: Activity{
				Commits: []string{"abc1234 Verify refund webhooks in `handleRefund` before retry_count resets", "def5678 Fix HTTPServer shutdown (see docs.md)."},
				Changed: []string{"billing/refund/webhook.go", "billing/refund/webhook_test.go", "README.md"},
			},
			want: []string{"handleRefund", "retry_count", "HTTPServer", "docs.md", "webhook", "webhook_test", "README", "billing/refund"},
		},
		{
			name: "plain English subjects give no identifiers; duplicates and short names are dropped",
			a: Activity{
				Commits: []string{"abc1234 Make the nightly export faster", "bcd2345 Webhook cleanup"},
				Changed: []string{"a.go", "web/webhook.ts", "Web/Webhook.ts"},
				Dirty:   []string{"web/webhook.ts"},
			},
			want: []string{"webhook", "web"},
		},
		{
			name: "a credential or an over-long word is never a key",
			a: Activity{
				Commits: []string{"abc1234 rotate ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6 and " + long},
				Changed: []string{"deploy/prod.env"},
			},
			want: []string{"prod", "deploy"},
		},
		{
			name: "nothing touched",
			a:    Activity{},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, noteKeys(&tc.a))
		})
	}
}

func TestNoteKeysFitTheStoreLimits(t *testing.T) {
	a := Activity{}
	for i := 0; i < 40; i++ {
		a.Changed = append(a.Changed, filepath.Join("pkg", "dir"+strings.Repeat("d", i), "file_"+strings.Repeat("f", i)+".go"))
	}
	keys := noteKeys(&a)
	require.Len(t, keys, gitstore.MaxKeys)
	n := gitstore.NewMemory{Text: "a session note", Keys: keys}
	require.NoError(t, n.Validate(), "a memory takes the keys as they are")
	require.Equal(t, keys, n.Keys)
}

// TestSessionNoteCarriesKeys: the note a session end writes, and the
// revision of it after more work, carry the keys of what was touched.
func TestSessionNoteCarriesKeys(t *testing.T) {
	ctx := context.Background()
	dir, git, s := startedSession(t, "s1")
	write := func(name, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	w := gitstore.Writer{Agent: "test", Session: "s1"}

	write("billing/refund.go", "package billing\n")
	git("add", ".")
	git("commit", "-q", "-m", "Verify refunds in verifyRefundSignature")
	note, err := s.End(ctx, "s1", EndOptions{Writer: w})
	require.NoError(t, err)
	require.NotNil(t, note)
	require.Equal(t, []string{"verifyRefundSignature", "refund", "billing"}, note.Keys)

	write("ledger/post_entry.go", "package ledger\n")
	git("add", ".")
	git("commit", "-q", "-m", "Post ledger entries with idempotency_key")
	note, err = s.End(ctx, "s1", EndOptions{Writer: w})
	require.NoError(t, err)
	require.NotNil(t, note)
	require.Equal(t, []string{"idempotency_key", "verifyRefundSignature", "refund", "post_entry", "billing", "ledger"}, note.Keys)
	stored, err := gitstore.NewStore(s.Repo, gitstore.RefMain, gitstore.ScopeProject).List(gitstore.Filter{Type: gitstore.TypeSession})
	require.NoError(t, err)
	require.Len(t, stored, 1, "one note per session")
	require.Equal(t, note.Keys, stored[0].Keys, "the revision stored the keys")
}
