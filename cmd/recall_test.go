package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/index"
)

type recallItem struct {
	ID          string  `json:"id"`
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	Score       float64 `json:"score"`
	Confidence  float64 `json:"confidence"`
	Label       string  `json:"label"`
	Trust       float64 `json:"trust"`
	Stale       bool    `json:"stale"`
	StaleReason string  `json:"stale_reason"`
	Scope       string  `json:"scope"`
	Author      string  `json:"author"`
	Agent       string  `json:"agent"`
}

func recallJSON(t *testing.T, sb *sandbox, args ...string) []recallItem {
	t.Helper()
	out := mustRun(t, sb, append([]string{"recall", "--json"}, args...)...)
	var items []recallItem
	require.NoError(t, json.Unmarshal([]byte(out), &items), out)
	return items
}

func TestCLIRecall(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	deploy := strings.TrimSpace(mustRun(t, sb, "add", "--type", "fact", "--", "The API is deployed to Fly.io from main by GitHub Actions."))
	mustRun(t, sb, "add", "--type", "gotcha", "--", "requireAdmin throws ERR_NO_SESSION before login; call it after the session middleware.")
	old := strings.TrimSpace(mustRun(t, sb, "add", "--", "Transactional email goes through SendGrid."))
	mustRun(t, sb, "add", "--supersedes", old, "--", "Transactional email goes through Postmark.")

	items := recallJSON(t, sb, "--", "how do we deploy the api?")
	require.Len(t, items, 1)
	require.True(t, strings.HasPrefix(items[0].ID, deploy))
	require.Equal(t, "fact", items[0].Type)
	require.Equal(t, "project", items[0].Scope)
	require.Greater(t, items[0].Score, 0.0)
	require.Greater(t, items[0].Confidence, 0.5)
	require.LessOrEqual(t, items[0].Confidence, 1.0)
	require.InDelta(t, 0.9, items[0].Trust, 0.001)
	require.False(t, items[0].Stale)
	require.Equal(t, "Proc Test <proc@example.com>", items[0].Author)

	// the raw JSON has the documented keys, and [] when nothing is relevant
	raw := mustRun(t, sb, "recall", "--json", "--", "requireAdmin")
	for _, k := range []string{`"id"`, `"type"`, `"text"`, `"score"`, `"confidence"`, `"trust"`, `"stale"`, `"scope"`, `"author"`} {
		require.Contains(t, raw, k)
	}
	require.Equal(t, "[]\n", mustRun(t, sb, "recall", "--json", "--", "what is the capital of Peru"))
	out, errOut, code := sb.run("recall", "--", "what is the capital of Peru")
	require.Equal(t, 0, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "nothing relevant")

	// another phrasing of the same need finds what the first one misses
	require.Empty(t, recallJSON(t, sb, "--", "where does the backend live"))
	items = recallJSON(t, sb, "--also", "fly.io deploy github actions", "--", "where does the backend live")
	require.Len(t, items, 1)
	require.True(t, strings.HasPrefix(items[0].ID, deploy))

	// superseded only with --all or --valid-at
	items = recallJSON(t, sb, "--", "transactional email provider")
	require.Len(t, items, 1)
	require.Contains(t, items[0].Text, "Postmark")
	items = recallJSON(t, sb, "--all", "--", "transactional email provider")
	require.Len(t, items, 2)

	// text output: id, type, trust, how likely a match and author on each item
	out = mustRun(t, sb, "recall", "--", "requireAdmin ERR_NO_SESSION")
	require.Regexp(t, `^- \[[0-9a-f]{6,}, gotcha, trust 0\.90, strong match, by Proc Test via cli\] requireAdmin throws`, out)

	// the recall snapshot lives in the common dir and a reindex rebuilds
	// it; it removes the MCP server's search index, which git-mem does not
	// link (the server builds it again when it starts)
	snapshot := filepath.Join(sb.repo, ".git", "mem", "recall.snapshot")
	_, err := os.Stat(snapshot)
	require.NoError(t, err)
	indexDir := filepath.Join(sb.repo, ".git", "mem", "index")
	require.NoError(t, os.MkdirAll(indexDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(indexDir, "git-mem-state.json"), []byte("{}"), 0o644))
	require.NoError(t, os.Remove(snapshot))
	out = mustRun(t, sb, "reindex")
	require.Regexp(t, `^indexed 4 memories in .*mem/recall\.snapshot\)\n$`, out)
	_, err = os.Stat(snapshot)
	require.NoError(t, err)
	_, err = os.Stat(indexDir)
	require.True(t, os.IsNotExist(err), "reindex removes the search index: %v", err)
}

func TestCLIRecallLimitBudgetAndFooter(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	for _, text := range []string{
		"Playwright e2e timeout in CI: raise webServer.timeout to 120 seconds.",
		"Playwright e2e tests time out when the API is not seeded; run pnpm db:seed first. " + strings.Repeat("Seeding details follow. ", 10),
		"The checkout e2e spec hits a Playwright timeout on Stripe's iframe; use frameLocator and waitFor.",
		"Playwright traces for e2e timeout failures are uploaded as CI artifacts for 7 days.",
		"Local Playwright e2e runs need PWDEBUG=1 to stop at a timeout instead of failing. " + strings.Repeat("Debugging notes here. ", 12),
		"Flaky e2e timeout in Playwright on Safari: we skip webkit on pull requests.",
	} {
		mustRun(t, sb, "add", "--", text)
	}
	// six memories share every word of the query: explicit recall returns
	// them all, each labelled by its confidence, and --min-confidence
	// leaves out those under it (0: none)
	all := recallJSON(t, sb, "--", "playwright e2e timeout")
	require.Len(t, all, 6)
	require.Equal(t, all, recallJSON(t, sb, "--min-confidence", "0", "--", "playwright e2e timeout"))
	for _, it := range all {
		require.Equal(t, index.ConfidenceLabel(it.Confidence), it.Label, "the label names the confidence")
	}
	floor := all[len(all)-1].Confidence + 0.001
	fewer := recallJSON(t, sb, "--min-confidence", fmt.Sprint(floor), "--", "playwright e2e timeout")
	require.NotEmpty(t, fewer)
	require.Less(t, len(fewer), 6)
	for _, it := range fewer {
		require.GreaterOrEqual(t, it.Confidence, floor)
	}

	out := mustRun(t, sb, "recall", "--limit", "2", "--", "playwright e2e timeout")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	require.Regexp(t, `^4 more matched: git mem recall --limit 30 -- playwright e2e timeout$`, lines[2])

	out = mustRun(t, sb, "recall", "--budget", "80", "--", "playwright e2e timeout")
	require.LessOrEqual(t, len([]rune(out)), 80*4)
	require.Contains(t, out, "more matched")
	items := recallJSON(t, sb, "--budget", "80", "--", "playwright e2e timeout")
	require.NotEmpty(t, items)
	require.Less(t, len(items), 6)

	_, errOut, code := sb.run("recall", "--min-confidence", "2", "--", "playwright")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "between 0 and 1")

	_, errOut, code = sb.run("recall", "--also", "a", "--also", "b", "--also", "c", "--also", "d", "--also", "e", "--", "playwright")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "at most 4")
}

func TestCLIRecallStale(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	require.NoError(t, os.MkdirAll(filepath.Join(sb.repo, "server"), 0o755))
	write := func(s string) {
		require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "server", "auth.ts"), []byte(s), 0o644))
		sb.git("add", "server/auth.ts")
		sb.git("commit", "-q", "-m", "auth: "+s)
	}
	write("v1")
	mustRun(t, sb, "add", "--path", "server/auth.ts", "--", "requireAdmin throws ERR_NO_SESSION before login")
	write("v2")
	write("v3")
	items := recallJSON(t, sb, "--", "requireAdmin ERR_NO_SESSION")
	require.Len(t, items, 1)
	require.True(t, items[0].Stale)
	require.Contains(t, items[0].StaleReason, "server/auth.ts changed in 2 commits since")
	out := mustRun(t, sb, "recall", "--", "requireAdmin ERR_NO_SESSION")
	require.Contains(t, out, "possibly stale: server/auth.ts changed in 2 commits since")
}

func TestCLIRecallUsage(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no query", []string{"recall"}, 2, "give the question after --"},
		{"negative limit", []string{"recall", "--limit", "-1", "--", "x y"}, 2, "--limit"},
		{"negative budget", []string{"recall", "--budget", "-5", "--", "x y"}, 2, "--budget"},
		{"bad valid-at", []string{"recall", "--valid-at", "someday", "--", "x y"}, 1, "is not a time"},
		{"bad as-of", []string{"recall", "--as-of", "someday", "--", "x y"}, 1, "neither a time"},
		{"query syntax is text", []string{"recall", "--", `title:"x" AND (y OR z)^2`}, 0, ""},
		{"empty query words", []string{"recall", "--", "the and of"}, 0, "no words to match"},
		{"boot negative budget", []string{"boot", "--budget", "-1"}, 2, "--budget"},
		{"reindex takes no args", []string{"reindex", "x"}, 2, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := sb.run(tc.args...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, errOut, tc.stderr)
		})
	}
}

func TestCLIBoot(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	_, errOut, code := sb.run("boot")
	require.Equal(t, 0, code)
	require.Contains(t, errOut, "no memories to start with yet")
	mustRun(t, sb, "add", "--type", "preference", "--", "Keep pull requests small and squash merge them.")
	mustRun(t, sb, "add", "--", "Stripe refunds need an idempotency key.")
	mustRun(t, sb, "add", "--", "Bookings are stored in UTC.")
	out := mustRun(t, sb, "boot", "--", "add stripe refunds")
	require.Contains(t, out, "Preferences and pinned memories:")
	require.Contains(t, out, "Memories relevant to this task:")
	require.Less(t, strings.Index(out, "squash merge"), strings.Index(out, "idempotency key"))
	// Not relevant to the task, but among the newest: boot keeps a quarter for them.
	require.Less(t, strings.Index(out, "Memories relevant to this task:"), strings.Index(out, "Newest memories:\n- ["))
	require.Contains(t, out[strings.Index(out, "Newest memories:"):], "Bookings are stored in UTC")

	mustRun(t, sb, "handoff", "--next", "wire the refund retries")
	out = mustRun(t, sb, "boot", "--", "add stripe refunds")
	require.Contains(t, out, "Handoff left for this branch (main):", "the branch's handoff comes first")
	require.Less(t, strings.Index(out, "wire the refund retries"), strings.Index(out, "squash merge"))

	raw := mustRun(t, sb, "boot", "--json", "--", "add stripe refunds")
	var b struct {
		Standing []recallItem `json:"standing"`
		Relevant []recallItem `json:"relevant"`
		Newest   []recallItem `json:"newest"`
		Handoff  *struct {
			Text string `json:"text"`
		} `json:"handoff"`
		Text string `json:"text"`
		More int    `json:"more"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &b))
	require.Len(t, b.Standing, 1)
	require.Len(t, b.Relevant, 1)
	require.Contains(t, b.Relevant[0].Text, "idempotency")
	require.Equal(t, index.ConfidenceLabel(b.Relevant[0].Confidence), b.Relevant[0].Label, "a match carries its label")
	require.Empty(t, b.Standing[0].Label, "a preference shown for itself matched nothing")
	require.Len(t, b.Newest, 1)
	require.Contains(t, b.Newest[0].Text, "Bookings")
	require.Empty(t, b.Newest[0].Label)
	require.NotNil(t, b.Handoff)
	require.Contains(t, b.Handoff.Text, "wire the refund retries")
}

func TestCLIEval(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	dir, err := filepath.Abs(filepath.Join("..", "fixtures", "eval"))
	require.NoError(t, err)
	out := mustRun(t, sb, "eval", "--split", "tune", dir)
	require.Contains(t, out, "recall@3")
	require.Regexp(t, `developer +1\.00`, out)
	_, errOut, code := sb.run("eval", t.TempDir())
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "memories.jsonl")

	// recall sets of the shared format: four systems per kind, and a
	// baseline the run falls under is an error
	sets, err := filepath.Abs(filepath.Join("..", "fixtures", "evalsets"))
	require.NoError(t, err)
	out = mustRun(t, sb, "eval", sets)
	require.Contains(t, out, "tidepool/tidepool-notes: recall@5 / hit@5")
	require.Regexp(t, `answerable +4 +[0-9.]+ / [0-9.]+ +1\.000 / 1\.00 +1\.000 / 1\.00 +1\.000`, out)
	base := filepath.Join(t.TempDir(), "base.json")
	require.NoError(t, os.WriteFile(base, []byte(`[{"source":"tidepool","set":"tidepool-notes","kind":"task","system":"explicit","measure":"recall","min":1.5}]`), 0o644))
	_, errOut, code = sb.run("eval", "--baseline", base, sets)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "1.000 is below the baseline 1.500")
}
