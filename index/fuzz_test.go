package index

import (
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// FuzzQuery: no input makes query building or recall (index or scan) error
// or panic, and a query never has more than MaxQueryTerms terms.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"", "requireAdmin", "server/auth.ts", `title:"x" AND y`, "\x00\xff", "🚀 ünï", "a_b-c.d/e\\f@g#h$i",
		"ERR_NO_SESSION: requireAdmin() threw at server/auth.ts:42:7", "HTTPServer OAuth2 k8s s3",
		"....////____----", "x:y:z", "((((", "*?~^",
	} {
		f.Add(s)
	}
	r := newTestRepo(f)
	repo := r.set.Repo
	repo.Now = func() time.Time { return testNow }
	st := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	for _, s := range seedMemories {
		_, err := st.Add(context.Background(), gitstore.Writer{}, gitstore.NewMemory{Type: s.Type, Text: s.Text, Paths: s.Paths})
		require.NoError(f, err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		terms := QueryTerms(q)
		require.LessOrEqual(t, len(terms), MaxQueryTerms)
		for _, term := range terms {
			require.NotEmpty(t, term)
			require.True(t, utf8.ValidString(term))
		}
		a, err := Recall(context.Background(), r.set, Options{Query: q, Now: testNow, NoStale: true})
		require.NoError(t, err)
		b, err := Recall(context.Background(), r.set, Options{Query: q, Now: testNow, NoStale: true, NoIndex: true})
		require.NoError(t, err)
		require.Equal(t, ids(a), ids(b))
	})
}
