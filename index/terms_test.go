package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecallUsesTheCallersTerms: a caller that analysed the query already
// passes its terms down (Options.Terms) and gets what recall would have
// answered from its own analysis; recall ranks with the terms given, not
// with o.Query's, except under a Tuning, which analyses the query its way.
func TestRecallUsesTheCallersTerms(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	for _, tc := range []struct {
		name, query, termsOf, want string
		tuned                      bool
	}{
		{"the query's own terms", "where do we deploy the api", "where do we deploy the api", "deployed to Fly.io", false},
		{"the terms given win", "where do we deploy the api", "requireAdmin ERR_NO_SESSION", "requireAdmin throws", false},
		{"a tuning analyses the query", "where do we deploy the api", "requireAdmin ERR_NO_SESSION", "deployed to Fly.io", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			terms := QueryTerms(tc.termsOf)
			res := r.recall(tc.query, func(o *Options) {
				o.Terms = terms
				if tc.tuned {
					o.Tuning = &Tuning{}
				}
			})
			require.NotEmpty(t, res.Hits)
			require.Contains(t, res.Hits[0].Memory.Text, tc.want)
			if !tc.tuned {
				require.Equal(t, terms, res.Terms)
				plain := r.recall(tc.termsOf)
				require.Equal(t, plain.Terms, res.Terms)
				require.Equal(t, plain.Hits[0].Memory.ID, res.Hits[0].Memory.ID)
			}
		})
	}
}
