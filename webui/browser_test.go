package webui

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/indextest"
)

// chromium finds Debian's headless-capable Chromium. CI installs it
// (.ci/run), so there a missing one fails the test; elsewhere the test is
// skipped with the reason.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium package for this test")
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run the real-browser test")
	return ""
}

// browser starts a fresh headless Chromium (its own profile directory)
// and records every console error and uncaught exception of its pages.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	exe := chromium(t)
	profile := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	// the browser goes before its profile directory is removed
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })

	// start the browser, then listen: what the pages write from now on
	require.NoError(t, chromedp.Do(ctx), "start %s", exe)
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// errors, uncaught exceptions, and the browser's own error
			// entries (a CSP violation, a failed load of the page's files)
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				problems = append(problems, m.String()+" "+m.URL)
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), problems...)
	}
}

// text is the text of the element sel finds.
func text[S chromedp.Selectable](t *testing.T, ctx context.Context, sel S) string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Text(sel))
	require.NoError(t, err)
	return got
}

// serve runs the fixture's server on its loopback listeners until the test ends.
func (f *fixture) serve() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx) }()
	f.t.Cleanup(func() {
		cancel()
		require.NoError(f.t, <-done)
	})
}

func TestInARealBrowser(t *testing.T) {
	ctx, problems := browser(t)
	f := newFixture(t, false)
	f.seed()
	f.serve()

	const reason = "the marina timezone is applied by the API now"
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(f.srv.URL()),
		chromedp.WaitVisible(chromedp.ID("q")),
		chromedp.SendKeys(chromedp.ID("q"), "which timezone are bookings stored in"),
		chromedp.Click(chromedp.ID("go")),
		// the results page, not the list the search was typed on
		chromedp.WaitVisible(chromedp.Search(`//p[@id="count"][contains(., "found for")]`)),
	))
	count := text(t, ctx, chromedp.ID("count"))
	label := text(t, ctx, chromedp.CSS("tr.memory .label"))
	require.Contains(t, count, "found for")
	require.Contains(t, []string{"strong", "likely", "possible", "weak"}, strings.TrimSpace(label))
	// open the best result and dispute it
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("tr.memory td.id a")),
		chromedp.WaitVisible(chromedp.ID("memory")),
		chromedp.SendKeys(chromedp.ID("reason"), reason),
		chromedp.Click(chromedp.ID("dispute")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	))
	require.Contains(t, text(t, ctx, chromedp.ID("flash")), "Disputed")
	history := text(t, ctx, chromedp.ID("history"))
	require.Contains(t, history, "dispute")
	require.Contains(t, history, reason, "the dispute and its reason are in the memory's history")
	require.Contains(t, text(t, ctx, chromedp.ID("events")), reason)

	// the store is disputed as the CLI would have done it
	ms, err := f.srv.mustOpen(t).List(gitstore.Filter{Now: f.now, Type: gitstore.TypeDecision})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, reason, ms[0].Events[len(ms[0].Events)-1].Reason)

	// the page follows the store: an agent's write shows without a reload
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(f.srv.URL()),
		chromedp.WaitVisible(chromedp.CSS("tr.memory")),
	))
	indextest.Add(t, f.repo.Main, "Saved by an agent while the page was open.")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.Search(`//td[contains(., "while the page was open")]`)),
	))

	require.Empty(t, problems(), "the pages logged no error")

	// an edit in progress is never lost: while the person types, a change
	// to the store shows a notice instead of reloading, and an action on
	// a memory that changed meanwhile is refused with its current state
	m := ms[0]
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(f.srv.URL()+"m/"+m.ID),
		chromedp.WaitVisible(chromedp.ID("memory")),
		chromedp.SendKeys(chromedp.ID("reason"), "half-typed reason"),
	))
	_, err = f.repo.Main.Confirm(t.Context(), gitstore.Writer{Agent: "codex"}, m.ID)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("changed"))))
	typed, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("reason")))
	require.NoError(t, err)
	require.Equal(t, "half-typed reason", typed, "the page did not reload under the person")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("dispute")),
		chromedp.WaitVisible(chromedp.ID("problem")),
	))
	require.Contains(t, text(t, ctx, chromedp.ID("problem")), "changed since the page showed it")
	require.Contains(t, text(t, ctx, chromedp.ID("events")), "confirm", "the page shows the memory as it is now")
	require.NotContains(t, text(t, ctx, chromedp.ID("events")), "half-typed", "nothing was written")
	// the browser logs the refusal's status, the one error expected
	expected := problems()
	require.Len(t, expected, 1)
	require.Contains(t, expected[0], "409")

	// every view draws without a console error
	for _, view := range []string{"timeline", "sessions", "team", "numbers"} {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(f.srv.URL()+view),
			chromedp.WaitVisible(chromedp.CSS("main")),
		), view)
	}
	// let the last page's script poll once
	require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(2500*time.Millisecond)))
	require.Equal(t, expected, problems(), "the pages logged no other error")
}
