package cmd_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGitDatesDateMemories: GIT_AUTHOR_DATE and GIT_COMMITTER_DATE date a
// memory and its commit as they date git commit's, read back by git log;
// a date git-mem cannot read is a user error that writes nothing.
func TestGitDatesDateMemories(t *testing.T) {
	sb := newSandbox(t)
	run := func(env []string, args ...string) (string, string, int) { return sb.memEnv(sb.repo, env, args...) }
	_, errOut, code := run([]string{"GIT_AUTHOR_DATE=2024-05-06T07:08:09Z", "GIT_COMMITTER_DATE=@1717000000 +0200"}, "add", "--", "the staging database is rebuilt every sunday night")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "2024-05-06T07:08:09+00:00\n2024-05-29T18:26:40+02:00\n", sb.git("log", "-1", "--format=%aI%n%cI", "refs/memory/main"))
	out := sb.memOK("list", "--json")
	require.Contains(t, out, `"created": "2024-05-06T07:08:09Z"`)

	_, errOut, code = run([]string{"GIT_AUTHOR_DATE=next tuesday"}, "add", "--", "the cache is warmed at deploy time")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "GIT_AUTHOR_DATE")
	require.NotContains(t, sb.memOK("list"), "cache is warmed")
}
