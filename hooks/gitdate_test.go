package hooks_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/surface"
)

// TestGitDatesDateTheHooksCommits: the git date variables of the hook's
// environment (Request.GitDates) date the session note's commit as they
// date the CLI's; one git cannot read writes nothing and is logged.
func TestGitDatesDateTheHooksCommits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dates surface.GitDates
		want  string // git log's author and committer dates; "" no commit
	}{
		{
			name:  "both",
			dates: surface.GitDates{Author: "2024-05-06T07:08:09Z", Committer: "@1717000000 +0200"},
			want:  "2024-05-06T07:08:09+00:00\n2024-05-29T18:26:40+02:00",
		},
		{name: "unreadable", dates: surface.GitDates{Committer: "next tuesday"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			hook := func(event, hookEvent string, extra map[string]any) *hooks.Outcome {
				var out bytes.Buffer
				return hooks.Run(context.Background(), hooks.Request{
					Event: event, Agent: "codex", In: strings.NewReader(payload("codex", hookEvent, "s7", dir, extra)), Out: &out,
					Now: fixedNow, Getenv: func(string) string { return "" }, GitDates: tc.dates,
				})
			}
			hook("session-start", "SessionStart", map[string]any{"source": "startup"})
			write(t, dir, "billing.go", "package billing\n")
			git(t, dir, "add", ".")
			git(t, dir, "commit", "-qm", "Add the billing package")
			o := hook("session-end", "SessionEnd", map[string]any{"reason": "other"})
			if tc.want == "" {
				require.ErrorContains(t, o.Err, "GIT_COMMITTER_DATE")
				require.Empty(t, strings.TrimSpace(git(t, dir, "for-each-ref", "refs/memory/main")))
				return
			}
			require.NoError(t, o.Err)
			require.Equal(t, tc.want, strings.TrimSpace(git(t, dir, "log", "-1", "--format=%aI%n%cI", "refs/memory/main")))
		})
	}
}
