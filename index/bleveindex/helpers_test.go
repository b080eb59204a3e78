package bleveindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// testRepo is a real git repository in a temp dir, with a worktree.
type testRepo struct {
	t    testing.TB
	dir  string
	set  *gitstore.Set
	main *gitstore.Store
	now  time.Time
}

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	tr := &testRepo{t: t, dir: dir, now: testNow}
	repo.Now = func() time.Time { return tr.now }
	tr.set = gitstore.NewSet(repo)
	tr.main = gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	return tr
}

func (r *testRepo) add(text string, mod ...func(*gitstore.NewMemory)) *gitstore.Memory {
	r.t.Helper()
	n := gitstore.NewMemory{Type: gitstore.TypeFact, Text: text, Source: gitstore.SourceUser}
	for _, f := range mod {
		f(&n)
	}
	m, err := r.main.Add(context.Background(), gitstore.Writer{Agent: "test"}, n)
	require.NoError(r.t, err)
	return m
}

func (r *testRepo) recall(q string, mod ...func(*index.Options)) *index.Result {
	r.t.Helper()
	o := index.Options{Query: q, Now: r.now.Add(time.Minute)}
	for _, f := range mod {
		f(&o)
	}
	res, err := index.Recall(context.Background(), r.set, o)
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

var seedTexts = []string{
	"Bookings are stored in UTC; convert to the marina's timezone only in the React UI.",
	"requireAdmin throws ERR_NO_SESSION before login; call it after the session middleware.",
	"Run database migrations with pnpm db:migrate before starting the API server.",
	"The API is deployed to Fly.io from the main branch by GitHub Actions.",
	"Use snake_case for Postgres column names and camelCase in TypeScript.",
	"Playwright tests time out in CI unless the webServer timeout is raised to 120 seconds.",
	"Stripe webhooks are verified with the signing secret from Doppler; raw body parsing is required.",
	"Keep pull requests small: one concern per PR, squash merge.",
}

func (r *testRepo) seed() {
	for _, s := range seedTexts {
		r.add(s)
	}
}

var genWords = strings.Fields(`deploy release staging production rollback migration schema database postgres
index query cache redis queue worker job retry backoff timeout latency request response header cookie
session token auth login password permission role admin user account booking payment refund invoice
stripe webhook signature event handler route endpoint api server client react component state form
validation error exception crash log trace metric alert test flaky ci pipeline build docker cluster
dns certificate secret config flag feature branch merge review owner team incident memory disk`)

// genMemories adds n memories of random words (Zipf-skewed, so that some
// words are common and pruning happens), many per commit.
func (r *testRepo) genMemories(n int, seed uint64) {
	r.t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	z := rand.NewZipf(rng, 1.2, 4, uint64(len(genWords)-1))
	for done := 0; done < n; done += 500 {
		k := min(500, n-done)
		_, err := r.main.Update(context.Background(), gitstore.Writer{Agent: "gen"}, func(tx *gitstore.Tx) error {
			now := tx.Now()
			for i := 0; i < k; i++ {
				var w []string
				for range 8 + rng.IntN(20) {
					w = append(w, genWords[z.Uint64()])
				}
				tx.Put(&gitstore.Memory{
					Schema: gitstore.SchemaVersion, ID: fmt.Sprintf("%016x", rng.Uint64()), Type: gitstore.TypeFact,
					Text: strings.Join(w, " ") + ".", Source: gitstore.SourceVerified, Trust: 0.75, Agent: "gen",
					Created: now.Add(-time.Duration(rng.IntN(365*24)) * time.Hour), Updated: now, ValidFrom: now,
				})
			}
			tx.Describe("add", fmt.Sprintf("%d generated memories", k), fmt.Sprintf("%016x", done))
			return nil
		})
		require.NoError(r.t, err)
	}
}
