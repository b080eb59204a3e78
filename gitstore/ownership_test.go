package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

// TestRepositoryOfAnotherUser: a repository owned by another user, which
// git refuses ("detected dubious ownership"), is refused by git-mem too,
// with nothing written and the safe.directory exception named; with the
// exception (the directory, a prefix/*, or *), in the global file or by
// git -c, both work in it. Only root can give a directory away.
func TestRepositoryOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a repository of another user needs root")
	}
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("SUDO_UID", "")
	dir := gitInit(t)
	require.NoError(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}))
	// the cleanup's git fsck sees it as its owner would
	t.Cleanup(func() { _ = exec.Command("chown", "-R", "0:0", dir).Run() })
	gitRefuses := func() bool {
		c := exec.Command("git", "-C", dir, "status")
		out, err := c.CombinedOutput()
		return err != nil && strings.Contains(string(out), "dubious ownership")
	}
	require.True(t, gitRefuses())

	for _, open := range []func(string) error{
		func(d string) error { _, err := Open(d); return err },
		func(d string) error { _, err := OpenIn(d); return err },
		func(d string) error { _, err := OpenSet(d); return err },
	} {
		err := open(dir)
		require.ErrorAs(t, err, new(*memerr.OwnershipError))
		require.NotErrorIs(t, err, memerr.ErrNoRepo)
		require.Contains(t, err.Error(), "safe.directory")
	}
	_, err := os.Stat(filepath.Join(dir, ".git", "refs", "memory"))
	require.ErrorIs(t, err, os.ErrNotExist)

	for _, safe := range []string{dir, filepath.Dir(dir) + "/*", "*"} {
		require.NoError(t, os.WriteFile(global, []byte("[safe]\n\tdirectory = "+safe+"\n"), 0o644))
		if !strings.HasSuffix(safe, "/*") { // a prefix is git 2.46's
			require.False(t, gitRefuses(), safe)
		}
		_, err := Open(dir)
		require.NoError(t, err, safe)
	}
	// an empty value forgets the ones before it
	require.NoError(t, os.WriteFile(global, []byte("[safe]\n\tdirectory = *\n\tdirectory =\n"), 0o644))
	require.True(t, gitRefuses())
	_, err = Open(dir)
	require.ErrorAs(t, err, new(*memerr.OwnershipError))
	// git -c of a calling git
	require.NoError(t, os.WriteFile(global, nil, 0o644))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "safe.directory")
	t.Setenv("GIT_CONFIG_VALUE_0", dir)
	require.False(t, gitRefuses())
	_, err = Open(dir)
	require.NoError(t, err)
}
