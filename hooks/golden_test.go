package hooks_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
)

var update = flag.Bool("update", false, "rewrite the golden outputs under fixtures/hooks")

const fixtureDir = "../fixtures/hooks"

var (
	idRe     = regexp.MustCompile(`\[[0-9a-f]{6,16}, `)
	commitRe = regexp.MustCompile(`\b[0-9a-f]{7}\b`)
)

func normalize(s string) string {
	s = idRe.ReplaceAllString(s, "[<id>, ")
	return commitRe.ReplaceAllString(s, "<commit>")
}

// goldenRepo is the repository every agent's fixtures run against: a few
// memories, a handoff on the feature branch, and a file being changed.
func goldenRepo(t *testing.T) string {
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Type: gitstore.TypePreference, Text: "Prefer table-driven tests with testify require"},
		seedMem{Text: "Bookings are stored in UTC and shown in the tenant's zone", Pinned: true},
		seedMem{Type: gitstore.TypeGotcha, Text: "Refund webhook signatures fail when the raw request body is parsed before verification", Paths: []string{"server/webhook.go"}, Source: gitstore.SourceVerified},
		seedMem{Type: gitstore.TypeCommand, Text: "Staging webhooks use the signing secret of the staging endpoint, not production"},
		seedMem{Text: "A rumour about refunds, barely trusted", Trust: 0.3},
		seedMem{Text: "Subagent notes on refund webhook retries", Tags: []string{"subagent:explore"}, Agent: "claude-code"},
	)
	git(t, dir, "checkout", "-qb", "feature/refund-webhook")
	set := openSet(t, dir)
	_, err := handoff.Save(context.Background(), set, gitstore.Writer{Agent: "codex", Session: "earlier"},
		handoff.HandoffInput{Done: "refund event parsed", Next: "persist refunds in the ledger", Warnings: []string{"staging secret rotates on Fridays"}}, index.Access{})
	require.NoError(t, err)
	write(t, dir, "server/webhook.go", "package server\n")
	return dir
}

func TestGoldenPerAgent(t *testing.T) {
	isolate(t)
	for _, agent := range payloadAgents() {
		t.Run(agent, func(t *testing.T) {
			dir := goldenRepo(t)
			files, err := filepath.Glob(filepath.Join(fixtureDir, agent, "*.json"))
			require.NoError(t, err)
			require.Len(t, files, 4)
			sort.Strings(files)
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				stdin := strings.ReplaceAll(string(data), "{{CWD}}", filepath.ToSlash(dir))
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				event := name[strings.Index(name, "-")+1:]
				switch event {
				case agents.EventStop:
					// five prompts without a save before the stop
					for i := 0; i < 5; i++ {
						prompt := strings.ReplaceAll(string(mustRead(t, filepath.Join(fixtureDir, agent, "2-prompt.json"))), "{{CWD}}", dir)
						run(t, agents.EventPrompt, "", prompt)
					}
				case agents.EventSessionEnd:
					git(t, dir, "add", ".")
					git(t, dir, "commit", "-qm", "Verify refund webhooks against the raw body")
				}
				// the agent is detected from the payload; --agent is not needed
				o := run(t, event, "", stdin)
				require.NoError(t, o.Err, "%s %s", agent, name)
				require.Equal(t, agent, o.Agent)
				got := normalize(string(o.Output))
				if event == agents.EventSessionEnd {
					ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
					require.NoError(t, err)
					require.Len(t, ms, 1)
					got += "--- session note\n" + normalize(ms[0].Text) + "\n"
				}
				golden := filepath.Join(fixtureDir, agent, name+".golden")
				if *update {
					require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
					continue
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./hooks -update to create the golden files")
				require.Equal(t, string(want), got, "%s %s", agent, name)
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return data
}
