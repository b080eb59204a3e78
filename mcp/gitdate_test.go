package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/surface"
)

// TestGitDatesDateTheServersCommits: the git date variables the server was
// started with (Options.GitDates, from git mem mcp's environment) date its
// writes' commits as they date the CLI's; one git cannot read fails the
// call and writes nothing.
func TestGitDatesDateTheServersCommits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dates   surface.GitDates
		want    string // git log's author and committer dates
		wantErr string
	}{
		{
			name:  "both",
			dates: surface.GitDates{Author: "2024-05-06T07:08:09Z", Committer: "@1717000000 +0200"},
			want:  "2024-05-06T07:08:09+00:00\n2024-05-29T18:26:40+02:00",
		},
		{name: "unreadable", dates: surface.GitDates{Author: "next tuesday"}, wantErr: "GIT_AUTHOR_DATE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			dir := newRepo(t)
			c := connect(t, Options{Dir: dir, GitDates: tc.dates}, "test-client", dir)
			res := c.call(ToolAdd, map[string]any{"text": "The staging database is rebuilt every sunday night"})
			if tc.wantErr != "" {
				require.True(t, res.IsError)
				require.Contains(t, resultText(res), tc.wantErr)
				require.Empty(t, strings.TrimSpace(gitRun(t, dir, "for-each-ref", "refs/memory/")))
				return
			}
			require.False(t, res.IsError, resultText(res))
			require.Equal(t, tc.want, strings.TrimSpace(gitRun(t, dir, "log", "-1", "--format=%aI%n%cI", "refs/memory/main")))
		})
	}
}
