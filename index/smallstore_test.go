package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// In a store of a few memories every word is rare, and a query word the store
// has never seen ("production") must not outweigh the words it does know.
func TestSmallStoreUnknownWordsDoNotDominate(t *testing.T) {
	r := newTestRepo(t)
	for _, s := range seedMemories[:4] {
		r.add(s.text)
	}
	res := r.recall("how do we deploy to production?")
	require.Equal(t, []string{"The API is deployed to Fly.io from the main branch by GitHub Actions."}, texts(res))
	// still off-topic: one incidental known word is not enough
	require.Empty(t, texts(r.recall("how do I deploy a Helm chart to a Kubernetes cluster?")))
	require.Empty(t, texts(r.recall("what's the capital of Peru?")))
}
