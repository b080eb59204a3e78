package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// testRepo is a real git repository in a temp dir, with a worktree.
type testRepo struct {
	t    *testing.T
	dir  string
	set  *gitstore.Set
	main *gitstore.Store
	now  time.Time
}

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func gitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Tess Tester", "GIT_AUTHOR_EMAIL=tess@example.com",
		"GIT_COMMITTER_NAME=Tess Tester", "GIT_COMMITTER_EMAIL=tess@example.com")
}

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	tr := &testRepo{dir: dir, now: testNow}
	repo.Now = func() time.Time { return tr.now }
	tr.set = gitstore.NewSet(repo)
	tr.main = gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	if tt, ok := t.(*testing.T); ok {
		tr.t = tt
	}
	return tr
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, string(out))
	return strings.TrimSpace(string(out))
}

// commitFile writes a file and commits it.
func (r *testRepo) commitFile(path, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	require.NoError(r.t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(r.t, os.WriteFile(full, []byte(content), 0o644))
	r.git("add", "--", path)
	r.git("commit", "-q", "-m", "change "+path)
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

func (r *testRepo) recall(q string, mod ...func(*Options)) *Result {
	r.t.Helper()
	o := Options{Query: q, Now: r.now.Add(time.Minute)}
	for _, f := range mod {
		f(&o)
	}
	res, err := Recall(context.Background(), r.set, o)
	require.NoError(r.t, err)
	return res
}

func ids(res *Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Memory.ID)
	}
	return out
}

func texts(res *Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Memory.Text)
	}
	return out
}

// seedMemories are a small realistic store.
var seedMemories = []struct {
	typ, text string
	paths     []string
}{
	{"decision", "Bookings are stored in UTC; convert to the marina's timezone only in the React UI.", nil},
	{"gotcha", "requireAdmin throws ERR_NO_SESSION before login; call it after the session middleware.", []string{"server/auth.ts"}},
	{"command", "Run database migrations with pnpm db:migrate before starting the API server.", nil},
	{"fact", "The API is deployed to Fly.io from the main branch by GitHub Actions.", []string{".github/workflows/deploy.yml"}},
	{"convention", "Use snake_case for Postgres column names and camelCase in TypeScript.", nil},
	{"gotcha", "Playwright tests time out in CI unless the webServer timeout is raised to 120 seconds.", []string{"apps/web/playwright.config.ts"}},
	{"fact", "Stripe webhooks are verified with the signing secret from Doppler; raw body parsing is required.", []string{"server/src/routes/webhooks/stripe.ts"}},
	{"preference", "Keep pull requests small: one concern per PR, squash merge.", nil},
}

func (r *testRepo) seed() map[string]*gitstore.Memory {
	out := map[string]*gitstore.Memory{}
	for _, s := range seedMemories {
		s := s
		m := r.add(s.text, func(n *gitstore.NewMemory) { n.Type = s.typ; n.Paths = s.paths })
		out[s.text] = m
	}
	return out
}
