package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// In a store of a few memories every word is rare, and a query word the
// store has never seen ("production") must not outweigh the words it does
// know: the deploy memory is the best candidate for a deploy question, and
// more likely what it is about than for a question that shares only
// "deploy" with it, which explicit recall labels weak. A question sharing
// nothing has no candidate at all.
func TestSmallStoreUnknownWordsDoNotDominate(t *testing.T) {
	r := newTestRepo(t)
	for _, s := range seedMemories[:4] {
		r.add(s.Text)
	}
	all := func(o *Options) { o.Point = Unfiltered }
	deploy := r.recall("how do we deploy to production?", all)
	require.NotEmpty(t, deploy.Hits)
	require.Equal(t, "The API is deployed to Fly.io from the main branch by GitHub Actions.", deploy.Hits[0].Memory.Text)
	helm := r.recall("how do I deploy a Helm chart to a Kubernetes cluster?", all)
	require.NotEmpty(t, helm.Hits)
	require.Greater(t, deploy.Hits[0].Confidence, helm.Hits[0].Confidence)
	for _, h := range r.recall("how do I deploy a Helm chart to a Kubernetes cluster?").Hits {
		require.Equal(t, LabelWeak, ConfidenceLabel(h.Confidence), h.Memory.Text)
	}
	require.Empty(t, texts(r.recall("what's the capital of Peru?", all)))
}
