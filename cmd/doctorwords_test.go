package cmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

// TestDoctorSaysWhichCheckFailed: doctor's closing error names the checks
// that failed, and calls the memory store damaged only when a check found
// it damaged: a missing git-mem-mcp binary is not damage, a missing memory
// object is.
func TestDoctorSaysWhichCheckFailed(t *testing.T) {
	sb := newSandbox(t)
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	// git-mem alone, without git-mem-mcp beside it or on PATH
	lone := filepath.Join(t.TempDir(), "git-mem")
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(lone, data, 0o755))
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	path := []string{"PATH=" + filepath.Dir(lone) + string(os.PathListSeparator) + filepath.Dir(gitPath)}
	run := func(args ...string) (string, string, int) {
		c := exec.Command(lone, args...)
		c.Dir, c.Env = sb.repo, append(sb.env(), path...)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return out.String(), errb.String(), code
	}
	_, errOut, code := run("install", "claude")
	require.Equal(t, 0, code, errOut)
	_, errOut, code = run("add", "--", "Bookings are stored in UTC")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := run("doctor", "--offline")
	require.Equal(t, 1, code, out+errOut)
	require.Contains(t, out, "fail  mcp binary: git-mem-mcp is neither beside git-mem nor on PATH")
	require.Contains(t, errOut, "git mem: 1 check failed (mcp binary); see the fix under it")
	require.NotContains(t, errOut, memerr.ErrCorrupt.Error())

	// now the store is damaged too: its memory's document is gone
	blob := strings.TrimSpace(sb.git("rev-parse", "refs/memory/main:memories"))
	gitstoretest.Damaged(sb.repo)
	require.NoError(t, os.Remove(filepath.Join(sb.repo, ".git", "objects", blob[:2], blob[2:])))
	out, errOut, code = run("doctor", "--offline")
	require.Equal(t, 1, code, out+errOut)
	require.Contains(t, errOut, "git mem: "+memerr.ErrCorrupt.Error()+": 2 checks failed (refs/memory/main, mcp binary); see the fix under each")
}
