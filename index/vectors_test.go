package index

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/embedding/embedtest"
	"github.com/git-mem/git-mem/gitstore"
)

const rotateText = "Rotate the frobnicator credentials every Tuesday."

// withEmbeddings sets git config mem.embed.* in the test repository and
// reopens it, as a new process would read it.
func (r *testRepo) withEmbeddings(url string, more ...string) {
	r.t.Helper()
	r.git("config", "mem.embed.url", url)
	r.git("config", "mem.embed.model", "stand-in")
	for i := 0; i+1 < len(more); i += 2 {
		r.git("config", more[i], more[i+1])
	}
	r.t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r.t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	repo, err := gitstore.Open(r.dir)
	require.NoError(r.t, err)
	repo.Now = func() time.Time { return r.now }
	r.set = gitstore.NewSet(repo)
	r.main = gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
}

func (r *testRepo) remember(text string) *gitstore.Memory {
	r.t.Helper()
	out, err := Access{}.Remember(context.Background(), r.set, r.main, gitstore.Writer{Agent: "test"},
		gitstore.NewMemory{Type: gitstore.TypeFact, Text: text, Source: gitstore.SourceUser})
	require.NoError(r.t, err)
	return out.Memory
}

func TestVectorsFindAParaphraseLexicalMisses(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	srv := embedtest.Start(t, embedtest.Paraphrases)
	r.withEmbeddings(srv.URL, "mem.embed.minScore", "0.6")
	m := r.remember(rotateText)
	_, inputs := srv.Counts()
	require.Equal(t, 1, inputs, "the memory itself at write time (the duplicate check is lexical)")

	const q = "widget keys cycling" // no word of the memory: similarity 3/√15 ≈ 0.77
	lexical := r.recall(q, func(o *Options) { o.Tuning = &Tuning{} })
	require.NotContains(t, ids(lexical), m.ID, "the lexical ranking alone misses it")

	res := r.recall(q)
	require.Equal(t, "vectors", res.Embedding)
	require.Equal(t, m.ID, ids(res)[0], "first, before weak lexical matches")
	h := res.Hits[0]
	require.InDelta(t, 0.77, h.Similarity, 0.03)
	require.NotEqual(t, LabelStrong, ConfidenceLabel(h.Confidence), "0.77 is under the injection score (1+0.6)/2")

	// a prompt nobody asked about needs a high similarity
	inj := r.recall(q, func(o *Options) { o.Point = Injection })
	require.Empty(t, inj.Hits, "0.77 is under the injection floor (1+0.6)/2")
	inj = r.recall("cycling widget keys weekly tue", func(o *Options) { o.Point = Injection })
	require.Equal(t, []string{m.ID}, ids(inj))
	require.Greater(t, inj.Hits[0].Similarity, 0.95)
	require.NotEqual(t, LabelWeak, ConfidenceLabel(inj.Hits[0].Confidence), "likely or better")

	// with several phrasings too
	fused := r.recall(q, func(o *Options) { o.Also = []string{"frobnicator rotation"} })
	require.Contains(t, ids(fused), m.ID)
	require.Equal(t, "vectors", fused.Embedding)
}

func TestVectorsOffTopicStillNothing(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	srv := embedtest.Start(t, embedtest.Paraphrases)
	r.withEmbeddings(srv.URL, "mem.embed.minScore", "0.6")
	r.remember(rotateText)
	for _, q := range []string{"how do I bake sourdough bread at home", "favourite hiking trails near the lake"} {
		for _, p := range []Point{Explicit, Injection} {
			res := r.recall(q, func(o *Options) { o.Point = p })
			require.Equal(t, "vectors", res.Embedding)
			require.Empty(t, res.Hits, "%q at %v", q, p)
		}
	}
}

func TestVectorsKeepLexicalResultsAndConfidence(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	const q = "when do database migrations run"
	before := r.recall(q)
	require.NotEmpty(t, before.Hits)
	require.Empty(t, before.Embedding, "nothing said without embeddings configured")

	srv := embedtest.Start(t, embedtest.Paraphrases)
	r.withEmbeddings(srv.URL)
	res := r.recall(q) // nothing is embedded yet: the same answer
	require.Equal(t, "vectors", res.Embedding)
	require.Equal(t, ids(before), ids(res))
	for i := range res.Hits {
		require.Equal(t, before.Hits[i].Confidence, res.Hits[i].Confidence)
	}
}

func TestVectorsOfARevisedTextAreNotUsed(t *testing.T) {
	r := newTestRepo(t)
	srv := embedtest.Start(t, embedtest.Paraphrases)
	r.withEmbeddings(srv.URL, "mem.embed.minScore", "0.6")
	m := r.remember(rotateText)
	_, err := r.main.Revise(context.Background(), gitstore.Writer{Agent: "test"}, m.ID, "Deploys happen on Fridays after lunch.")
	require.NoError(t, err)
	require.Empty(t, r.recall("widget keys cycling").Hits, "the vector was of the old text")
}

func TestVectorsDeadOrSlowEndpointIsLexical(t *testing.T) {
	dead := embedtest.DeadURL(t)
	slow := embedtest.Start(t, nil)
	slow.Set(func(s *embedtest.Server) { s.Delay = 3 * time.Second })
	for _, tc := range []struct{ name, url, why string }{
		{"dead", dead, "connect"},
		{"slow", slow.URL, "no answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRepo(t)
			r.seed()
			const q = "when do database migrations run"
			want := ids(r.recall(q))
			require.NotEmpty(t, want)
			r.withEmbeddings(tc.url, "mem.embed.timeout", "300ms")
			start := time.Now()
			res := r.recall(q)
			require.Less(t, time.Since(start), 2*time.Second)
			require.Equal(t, want, ids(res))
			require.True(t, strings.HasPrefix(res.Embedding, "lexical only: "), res.Embedding)
			require.Contains(t, res.Embedding, tc.why)

			// the next recall does not wait for it again
			start = time.Now()
			res = r.recall(q)
			require.Less(t, time.Since(start), 250*time.Millisecond)
			require.Equal(t, want, ids(res))
			require.Contains(t, res.Embedding, "failed recently")

			// a write does not wait either, and is saved
			start = time.Now()
			m := r.remember("The staging database is reset every night at 02:00.")
			require.Less(t, time.Since(start), 2*time.Second)
			require.NotEmpty(t, m.ID)
		})
	}
}

func TestFillVectorsForMemoriesWrittenWithoutThem(t *testing.T) {
	r := newTestRepo(t)
	seeded := r.seed() // written by the store alone: no vectors
	srv := embedtest.Start(t, embedtest.Paraphrases)
	r.withEmbeddings(srv.URL)
	var calls [][2]int
	res, err := FillVectors(context.Background(), r.set, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	require.NoError(t, err)
	require.Equal(t, len(seeded), res.Memories)
	require.Equal(t, len(seeded), res.Embedded)
	require.Equal(t, len(seeded), res.Cached)
	require.Equal(t, [2]int{len(seeded), len(seeded)}, calls[len(calls)-1])

	res, err = FillVectors(context.Background(), r.set, nil)
	require.NoError(t, err)
	require.Zero(t, res.Embedded, "every text already has its vector")

	// a forgotten memory's vector is dropped
	var victim *gitstore.Memory
	for _, m := range seeded {
		victim = m
		break
	}
	_, err = r.main.Forget(context.Background(), gitstore.Writer{Agent: "test"}, victim.ID)
	require.NoError(t, err)
	res, err = FillVectors(context.Background(), r.set, nil)
	require.NoError(t, err)
	require.Equal(t, 1, res.Removed)
	require.Equal(t, len(seeded)-1, res.Cached)

	// without embeddings configured there is nothing to fill
	none := newTestRepo(t)
	res, err = FillVectors(context.Background(), none.set, nil)
	require.NoError(t, err)
	require.Nil(t, res)
	require.NoError(t, PruneVectors(context.Background(), none.set))
	_, err = os.Stat(none.set.Repo.Mem().Vectors())
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestNoEmbeddingsNoFiles(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	res := r.recall("when do database migrations run")
	require.NotEmpty(t, res.Hits)
	r.remember("The staging database is reset every night at 02:00.")
	_, err := os.Stat(r.set.Repo.Mem().Vectors())
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Nil(t, embedding.Open(r.set.Repo))
}
