package handoff

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/index"
)

var bootNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func bootRepo(t *testing.T) (*gitstore.Set, *gitstore.Store) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	repo.Now = func() time.Time { return bootNow.Add(-time.Hour) }
	return gitstore.NewSet(repo), gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
}

func addMem(t *testing.T, st *gitstore.Store, n gitstore.NewMemory) *gitstore.Memory {
	t.Helper()
	if n.Source == "" {
		n.Source = gitstore.SourceUser
	}
	m, err := st.Add(context.Background(), gitstore.Writer{Agent: "test"}, n)
	require.NoError(t, err)
	return m
}

func TestBoot(t *testing.T) {
	set, st := bootRepo(t)
	pref := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Answer in short paragraphs; no emojis in commit messages."})
	pinned := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Pinned: true, Text: "Production database is Neon Postgres 16 in eu-central-1."})
	refund := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeGotcha, Text: "Stripe refunds must be created with an idempotency key or retries double-refund."})
	webhook := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Stripe webhooks are verified with the signing secret from Doppler."})
	other := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeConvention, Text: "React components live in apps/web/src/components, one per file."})
	weak := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Source: gitstore.SourceInferred, Tentative: true, Text: "Maybe prefer tabs over spaces."})
	ho, err := Save(context.Background(), set, gitstore.Writer{Agent: "test"}, HandoffInput{Next: "finish the refund retries", Branch: "feature/stripe-refunds"}, index.Access{})
	require.NoError(t, err)

	cases := []struct {
		name     string
		opts     BootOptions
		first    []string // ids expected in order at the start of Standing
		relevant []string // ids expected in Relevant
		newest   []string // ids expected among the newest, whatever their score
		handoff  string   // the handoff section heading expected first, if any
	}{
		{"task", BootOptions{Task: "add refunds to the stripe webhook handler"}, []string{pinned.ID, pref.ID}, []string{refund.ID}, []string{other.ID}, "Handoff left on another branch (feature/stripe-refunds), not this one:"},
		{"branch words", BootOptions{Branch: "feature/stripe-refunds"}, []string{pinned.ID, pref.ID}, []string{refund.ID}, []string{other.ID}, "Handoff left for this branch (feature/stripe-refunds):"},
		{"nothing to search", BootOptions{Branch: "main"}, []string{pinned.ID, pref.ID}, []string{refund.ID, webhook.ID, other.ID}, nil, "Handoff left on another branch (feature/stripe-refunds), not this one:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Now = bootNow
			res, err := Boot(context.Background(), set, tc.opts)
			require.NoError(t, err)
			ids := func(hits []index.Hit) []string {
				var out []string
				for _, h := range hits {
					out = append(out, h.Memory.ID)
				}
				return out
			}
			standing, relevant, newest := ids(res.Standing), ids(res.Relevant), ids(res.Newest)
			require.ElementsMatch(t, tc.first, standing)
			for _, id := range tc.relevant {
				require.Contains(t, relevant, id)
			}
			for _, id := range tc.newest {
				require.Contains(t, newest, id, "the newest quarter keeps it whatever its score")
				require.NotContains(t, relevant, id)
			}
			require.True(t, strings.HasPrefix(res.Text, Preamble+"\n"+tc.handoff), "the handoff comes first:\n%s", res.Text)
			require.Contains(t, res.Text, "Next: finish the refund retries")
			require.Less(t, strings.Index(res.Text, pref.ID[:6]), strings.Index(res.Text, tc.relevant[0][:6]), "preferences come before the relevant memories")
			require.NotContains(t, res.Text, weak.ID[:6], "under the injection floor")
			require.NotContains(t, relevant, ho.ID)
			require.Equal(t, 1+len(res.Standing)+len(res.Relevant)+len(res.Newest), res.Shown+res.More)
		})
	}
}

func TestBootBudget(t *testing.T) {
	set, st := bootRepo(t)
	for i := 0; i < 40; i++ {
		addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Deploy note " + strings.Repeat("x", i) + ": deploys to Fly.io run from main through GitHub Actions, step " + strings.Repeat("y", 40) + "."})
	}
	for _, budget := range []int{100, 300, 1000} {
		res, err := Boot(context.Background(), set, BootOptions{Task: "how do deploys work", BudgetTokens: budget, Now: bootNow})
		require.NoError(t, err)
		require.LessOrEqual(t, len([]rune(res.Text)), budget*4)
		require.Greater(t, res.More, 0)
		lines := strings.Split(strings.TrimSpace(res.Text), "\n")
		require.Contains(t, lines[len(lines)-1], "more memories — git mem recall")
	}
	res, err := Boot(context.Background(), set, BootOptions{Task: "how do deploys work", BudgetTokens: 100000, Now: bootNow})
	require.NoError(t, err)
	require.LessOrEqual(t, len([]rune(res.Text)), MaxBootChars, "the hard cap holds whatever the budget")
}

func TestBootEmptyStore(t *testing.T) {
	set, _ := bootRepo(t)
	res, err := Boot(context.Background(), set, BootOptions{Task: "anything at all", Now: bootNow})
	require.NoError(t, err)
	require.Empty(t, res.Text)
	require.Zero(t, res.Shown)
}

func TestBranchWords(t *testing.T) {
	cases := map[string]string{
		"main":                   "",
		"feature/stripe-refunds": "stripe refunds",
		"fix/ERR_NO_SESSION":     "ERR NO SESSION",
		"alice/new-onboarding":   "alice new onboarding",
		"":                       "",
	}
	for in, want := range cases {
		require.Equal(t, want, branchWords(in), in)
	}
}
