package bleveindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/indextest"
)

// testRepo is a real git repository in a temp dir, with a worktree, on the
// test's clock.
type testRepo struct {
	*indextest.Repo
	t   testing.TB
	now time.Time
}

var testNow = indextest.Now

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	tr := &testRepo{t: t, now: testNow}
	tr.Repo = indextest.NewRepo(t, func() time.Time { return tr.now })
	return tr
}

func (r *testRepo) add(text string, mod ...func(*gitstore.NewMemory)) *gitstore.Memory {
	r.t.Helper()
	return indextest.Add(r.t, r.Main, text, mod...)
}

func (r *testRepo) recall(q string, mod ...func(*index.Options)) *index.Result {
	r.t.Helper()
	o := index.Options{Query: q, Now: r.now.Add(time.Minute)}
	for _, f := range mod {
		f(&o)
	}
	res, err := index.Recall(context.Background(), r.Set, o)
	require.NoError(r.t, err)
	return res
}

func ids(res *index.Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Memory.ID)
	}
	return out
}

// seed adds the texts of indextest.Seed, each as a fact.
func (r *testRepo) seed() {
	for _, s := range indextest.Seed {
		r.add(s.Text)
	}
}

var genWords = strings.Fields(`deploy release staging production rollback migration schema database postgres
index query cache redis queue worker job retry backoff timeout latency request response header cookie
session token auth login password permission role admin user account booking payment refund invoice
stripe webhook signature event handler route endpoint api server client react component state form
validation error exception crash log trace metric alert test flaky ci pipeline build docker cluster
dns certificate secret config flag feature branch merge review owner team incident memory disk`)

// genMemories adds n memories of random words (Zipf-skewed, so that some
// words are common and pruning happens), many per commit, written at
// random minutes of a year (some within a sitting of each other).
func (r *testRepo) genMemories(n int, seed uint64) {
	r.t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	z := rand.NewZipf(rng, 1.2, 4, uint64(len(genWords)-1))
	for done := 0; done < n; done += 500 {
		k := min(500, n-done)
		_, err := r.Main.Update(context.Background(), gitstore.Writer{Agent: "gen"}, func(tx *gitstore.Tx) error {
			now := tx.Now()
			for i := 0; i < k; i++ {
				var w []string
				for range 8 + rng.IntN(20) {
					w = append(w, genWords[z.Uint64()])
				}
				tx.Put(&gitstore.Memory{
					Schema: gitstore.SchemaVersion, ID: fmt.Sprintf("%016x", rng.Uint64()), Type: gitstore.TypeFact,
					Text: strings.Join(w, " ") + ".", Source: gitstore.SourceVerified, Trust: 0.75, Agent: "gen",
					Created: now.Add(-time.Duration(rng.IntN(365*24*60)) * time.Minute), Updated: now, ValidFrom: now,
				})
			}
			tx.Describe("add", fmt.Sprintf("%d generated memories", k), fmt.Sprintf("%016x", done))
			return nil
		})
		require.NoError(r.t, err)
	}
}
