package gitstore

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

// TestRefAtABlobIsNotAMissingCommit: a memory ref pointed by hand at a blob
// (git update-ref) is reported as the wrong kind of object, with the fix.
func TestRefAtABlobIsNotAMissingCommit(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	gitstoretest.CheckedByGit(t, dir)
	set, err := OpenSet(dir)
	require.NoError(t, err)
	st, err := set.Writable(ScopeProject)
	require.NoError(t, err)
	_, err = st.Add(context.Background(), Writer{}, NewMemory{Text: "Bookings are stored in UTC"})
	require.NoError(t, err)
	cmd := exec.Command("git", "-C", dir, "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader("not a commit\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	git("update-ref", RefMain, strings.TrimSpace(string(out)))
	_, err = st.Read()
	require.ErrorIs(t, err, memerr.ErrCorrupt)
	require.ErrorContains(t, err, "is a blob, not a commit")
	require.NotContains(t, err.Error(), "missing")
}
