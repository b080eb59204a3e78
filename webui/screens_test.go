package webui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/indextest"
)

// realistic is what a team's agents remember of a booking app over a few
// weeks: the screenshots' store.
var realistic = []struct{ typ, text, paths string }{
	{"decision", "Bookings are stored in UTC; convert to the marina's timezone only in the React UI.", ""},
	{"gotcha", "requireAdmin throws ERR_NO_SESSION before login; call it after the session middleware.", "server/auth.ts"},
	{"command", "Run database migrations with pnpm db:migrate before starting the API server.", ""},
	{"fact", "The API is deployed to Fly.io from the main branch by GitHub Actions.", ".github/workflows/deploy.yml"},
	{"convention", "Use snake_case for Postgres column names and camelCase in TypeScript.", ""},
	{"gotcha", "Playwright tests time out in CI unless the webServer timeout is raised to 120 seconds.", "apps/web/playwright.config.ts"},
	{"fact", "Stripe webhooks are verified with the signing secret from Doppler; raw body parsing is required.", "server/src/routes/webhooks/stripe.ts"},
	{"preference", "Keep pull requests small: one concern per PR, squash merge.", ""},
	{"gotcha", "The slot calendar caches availability for 60 s in Redis; invalidate slots:<marina> after a booking.", "server/src/slots/cache.ts"},
	{"decision", "Refunds go through Stripe only; we never issue manual bank transfers from the app.", ""},
	{"command", "Seed a local database with pnpm db:seed --marinas 3 --boats 40.", "scripts/seed.ts"},
	{"fact", "Each marina has its own season window; bookings outside it are rejected with SEASON_CLOSED.", "server/src/bookings/season.ts"},
	{"convention", "API errors are { code, message } with an UPPER_SNAKE code; the web app maps codes to copy.", "server/src/errors.ts"},
	{"gotcha", "Safari drops the session cookie on the marina subdomains unless SameSite=Lax is set explicitly.", "server/src/session.ts"},
	{"fact", "Kayak rentals are priced per hour, boats per half day; see pricing.ts for the rounding rule.", "server/src/pricing.ts"},
	{"command", "Regenerate the API client with pnpm openapi:gen after changing a route schema.", "packages/api-client/"},
	{"decision", "The waitlist notifies by email only; SMS was dropped for cost in the November review.", ""},
	{"gotcha", "Vitest runs in jsdom; date-fns-tz needs TZ=UTC in the test script or snapshots drift.", "apps/web/vitest.config.ts"},
	{"fact", "Invoices are rendered by the worker from templates/invoice.mjml and stored in the invoices bucket.", "worker/internal/invoices.go"},
	{"convention", "Feature flags live in flags.ts and default to off; remove a flag within two releases of launch.", "apps/web/src/flags.ts"},
	{"preference", "Explain a migration's rollback in the PR description before asking for review.", ""},
	{"gotcha", "The harbor map tiles 404 on staging because the CDN key is production-only; use the fallback style.", "apps/web/src/map/tiles.ts"},
	{"fact", "Checkout holds a slot for 10 minutes; the cron job release-holds frees expired holds every minute.", "worker/cron/release_holds.go"},
	{"command", "Tail production logs with fly logs -a marina-api | grep booking_id=.", ""},
	{"decision", "Customer accounts are optional: a guest checkout stores the email on the booking only.", ""},
}

var people = []struct{ name, email, agent string }{
	{"Ana Ruiz", "ana@example.com", "claude-code"},
	{"Ben Okafor", "ben@example.com", "codex"},
	{"Chen Wei", "chen@example.com", "gemini"},
	{"Dana Levi", "dana@example.com", "claude-code"},
}

var topics = []string{"the booking form", "the slot calendar", "refund flow", "season rules", "the waitlist", "invoice worker", "the harbor map", "checkout holds", "Stripe webhooks", "guest checkout"}
var findings = []string{
	"%s fails its e2e test when the marina timezone is ahead of UTC; the fixture pins Europe/Lisbon.",
	"%s reads prices from the cached catalogue; a price change needs pnpm cache:bust.",
	"%s logs a warning for every retry; the alert fires only after five in a minute.",
	"%s is behind the flag %s-v2 until the marina owners have tried it.",
	"Changing %s needs a migration review from the data team (see CODEOWNERS).",
	"%s is covered by the nightly load test; keep p95 under 300 ms.",
}

// TestScreenshots draws each view of a realistic store in a real browser
// into $GIT_MEM_UI_SCREENSHOTS (docs/ui/ in the repository): run it when the
// page changes.
//
//	GIT_MEM_UI_SCREENSHOTS=$PWD/docs/ui go test ./webui/ -run TestScreenshots
func TestScreenshots(t *testing.T) {
	out := os.Getenv("GIT_MEM_UI_SCREENSHOTS")
	if out == "" {
		t.Skip("set GIT_MEM_UI_SCREENSHOTS to a directory to draw the screenshots of docs/ui")
	}
	ctx, problems := browser(t)
	f := newFixture(t, false)
	ids := realisticStore(t, f)
	f.serve()
	require.NoError(t, os.MkdirAll(out, 0o755))
	shots := []struct{ name, path string }{
		{"memories", ""},
		{"search", "?q=" + strings.ReplaceAll("where is the API deployed", " ", "+")},
		{"memory", "m/" + ids[0]},
		{"timeline", "timeline?as_of=" + indextest.Now.AddDate(0, 0, -14).Format(time.DateOnly)},
		{"sessions", "sessions"},
		{"team", "team"},
		{"numbers", "numbers"},
	}
	for _, s := range shots {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(f.srv.URL()+s.path),
			chromedp.WaitVisible(chromedp.CSS("main")),
		), s.name)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err, s.name)
		require.NoError(t, os.WriteFile(filepath.Join(out, s.name+".png"), png, 0o644))
	}
	require.Empty(t, problems())
}

// realisticStore writes a few hundred memories of four people's agents
// over eight weeks, with confirms, disputes, a superseded fact, handoffs
// and session notes; it returns the superseded fact's id first.
func realisticStore(t *testing.T, f *fixture) []string {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 1))
	at := indextest.Now.AddDate(0, 0, -56)
	step := 56 * 24 * time.Hour / 300
	f.repo.Main.Repo.Now = func() time.Time { return at }
	as := func(i int) gitstore.Writer {
		p := people[i%len(people)]
		t.Setenv("GIT_AUTHOR_NAME", p.name)
		t.Setenv("GIT_AUTHOR_EMAIL", p.email)
		t.Setenv("GIT_COMMITTER_NAME", p.name)
		t.Setenv("GIT_COMMITTER_EMAIL", p.email)
		return gitstore.Writer{Agent: p.agent, Session: fmt.Sprintf("s-%04d", i/7)}
	}
	var made []*gitstore.Memory
	add := func(i int, n gitstore.NewMemory) *gitstore.Memory {
		at = at.Add(step)
		m, err := f.repo.Main.Add(ctx, as(i), n)
		require.NoError(t, err)
		made = append(made, m)
		return m
	}
	old := add(1, gitstore.NewMemory{Type: "fact", Text: "The API is deployed to Heroku by a manual git push from a laptop.", Source: gitstore.SourceInferred, Tags: []string{"deploy"}, Paths: []string{"Procfile"}})
	for i, m := range realistic {
		n := gitstore.NewMemory{Type: m.typ, Text: m.text, Source: []string{gitstore.SourceUser, gitstore.SourceVerified, gitstore.SourceInferred}[i%3]}
		if m.paths != "" {
			n.Paths = []string{m.paths}
		}
		if i == 3 {
			n.Supersedes = old.ID
		}
		add(i, n)
	}
	for i := 0; len(made) < 260; i++ {
		topic := topics[r.IntN(len(topics))]
		text := findings[r.IntN(len(findings))]
		if strings.Count(text, "%s") == 2 {
			text = fmt.Sprintf(text, topic, strings.ReplaceAll(topic, " ", "-"))
		} else {
			text = fmt.Sprintf(text, topic)
		}
		text = strings.ToUpper(text[:1]) + text[1:] + fmt.Sprintf(" (noted on %s.)", at.Format("Jan 2"))
		typ := []string{"fact", "gotcha", "decision", "convention", "command"}[r.IntN(5)]
		if i%23 == 0 {
			add(i, gitstore.NewMemory{Type: gitstore.TypeHandoff, Text: "Handoff: " + topic + " is half done; tests pass except the timezone case.", Source: gitstore.SourceInferred, Tags: []string{"branch:feature/" + strings.ReplaceAll(strings.TrimPrefix(topic, "the "), " ", "-")}})
			continue
		}
		if i%11 == 0 {
			add(i, gitstore.NewMemory{Type: gitstore.TypeSession, Text: fmt.Sprintf("Session: worked on %s; 3 commits, files changed: server/src/%s.ts.", topic, strings.ReplaceAll(strings.TrimPrefix(topic, "the "), " ", "_")), Source: gitstore.SourceInferred, Tags: []string{"branch:main"}})
			continue
		}
		add(i, gitstore.NewMemory{Type: typ, Text: text, Source: gitstore.SourceInferred})
	}
	// the team's verdicts
	for i, m := range made[10:60] {
		at = at.Add(time.Minute)
		w := as(i + 1)
		var err error
		switch i % 5 {
		case 0:
			_, err = f.repo.Main.Confirm(ctx, w, m.ID)
		case 3:
			_, err = f.repo.Main.Dispute(ctx, w, m.ID, "not since the November refactor: check before relying on it")
		}
		require.NoError(t, err)
	}
	_, err := f.repo.Main.Dispute(ctx, as(2), old.ID, "we moved to Fly.io in October; nobody pushes from a laptop")
	require.NoError(t, err)
	at = indextest.Now
	return []string{old.ID}
}
