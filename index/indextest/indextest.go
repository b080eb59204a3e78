// Package indextest is the test support of index and of the packages built
// on it (index/bleveindex): a real git repository in a temporary directory,
// its memory stores on the test's clock, and a small realistic store to seed
// it with. Only tests import it (cmd/architecture_test.go).
package indextest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// Now is where a test's clock starts: a fixed time, so that what ranks by
// age ranks the same on every run.
var Now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// GitEnv is the environment of a test's git commands: no system or global
// configuration, and a fixed identity.
func GitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Tess Tester", "GIT_AUTHOR_EMAIL=tess@example.com",
		"GIT_COMMITTER_NAME=Tess Tester", "GIT_COMMITTER_EMAIL=tess@example.com")
}

// Repo is a git repository with a worktree (branch main) and its stores.
type Repo struct {
	Dir  string
	Set  *gitstore.Set
	Main *gitstore.Store
}

// NewRepo creates the repository in a temporary directory and opens its
// stores, whose writes are dated by now.
func NewRepo(t testing.TB, now func() time.Time) *Repo {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = GitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	repo.Now = now
	return &Repo{
		Dir:  dir,
		Set:  gitstore.NewSet(repo),
		Main: gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject),
	}
}

// Add saves text in st as a fact a user stated, after each mod has changed
// the new memory.
func Add(t testing.TB, st *gitstore.Store, text string, mod ...func(*gitstore.NewMemory)) *gitstore.Memory {
	t.Helper()
	n := gitstore.NewMemory{Type: gitstore.TypeFact, Text: text, Source: gitstore.SourceUser}
	for _, f := range mod {
		f(&n)
	}
	m, err := st.Add(context.Background(), gitstore.Writer{Agent: "test"}, n)
	require.NoError(t, err)
	return m
}

// SeedMemory is one memory of Seed.
type SeedMemory struct {
	Type, Text string
	Paths      []string
}

// Seed is a small realistic store: what agents on a web project remember.
var Seed = []SeedMemory{
	{"decision", "Bookings are stored in UTC; convert to the marina's timezone only in the React UI.", nil},
	{"gotcha", "requireAdmin throws ERR_NO_SESSION before login; call it after the session middleware.", []string{"server/auth.ts"}},
	{"command", "Run database migrations with pnpm db:migrate before starting the API server.", nil},
	{"fact", "The API is deployed to Fly.io from the main branch by GitHub Actions.", []string{".github/workflows/deploy.yml"}},
	{"convention", "Use snake_case for Postgres column names and camelCase in TypeScript.", nil},
	{"gotcha", "Playwright tests time out in CI unless the webServer timeout is raised to 120 seconds.", []string{"apps/web/playwright.config.ts"}},
	{"fact", "Stripe webhooks are verified with the signing secret from Doppler; raw body parsing is required.", []string{"server/src/routes/webhooks/stripe.ts"}},
	{"preference", "Keep pull requests small: one concern per PR, squash merge.", nil},
}
