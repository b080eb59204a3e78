package hooks_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
)

// slowGit puts a git first on PATH that waits before running the real one,
// so that a hook reaches its deadline in the middle of its work.
func slowGit(t *testing.T, wait string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	script := "#!/bin/sh\nsleep " + wait + "\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// locksUnder lists the lock files left in a git directory.
func locksUnder(t *testing.T, gitDir string) []string {
	t.Helper()
	var locks []string
	require.NoError(t, filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return err
	}))
	return locks
}

// TestHookDeadlineLeavesNoLock: a session-end hook process that reaches its
// deadline in the middle of writing the session note exits without leaving
// a lock (it left the note lock, so the session's next note was lost, and a
// ref lock made the next add wait 10 s and git update-ref fail); the next
// session end then writes the note at once.
func TestHookDeadlineLeavesNoLock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binary")
	}
	_, hookBin := buildBinaries(t)
	isolate(t)
	dir := newRepo(t, false)
	exe(t, hookBin, payload(agents.Claude, "SessionStart", "s1", dir, nil), agents.EventSessionStart, "--agent", agents.Claude)
	write(t, dir, "refund.go", "package refund\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Verify refund webhooks against the raw body")

	end := exec.Command(hookBin, agents.EventSessionEnd, "--agent", agents.Claude)
	end.Stdin = strings.NewReader(payload(agents.Claude, "SessionEnd", "s1", dir, nil))
	end.Env = append(os.Environ(), "PATH="+slowGit(t, "0.3"), "GIT_MEM_HOOK_DEADLINE_MS=150")
	out, err := end.Output()
	require.NoError(t, err, "a hook exits 0")
	require.Empty(t, out)
	require.Empty(t, locksUnder(t, filepath.Join(dir, ".git")), "a hook past its deadline releases what it holds")

	start := time.Now()
	exe(t, hookBin, payload(agents.Claude, "SessionEnd", "s1", dir, nil), agents.EventSessionEnd, "--agent", agents.Claude)
	require.Less(t, time.Since(start), 2*time.Second)
	notes, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
	require.NoError(t, err)
	require.Len(t, notes, 1, "the session's note is written")
	require.Contains(t, notes[0].Text, "Verify refund webhooks")
	tip := git(t, dir, "rev-parse", gitstore.RefMain)
	git(t, dir, "update-ref", gitstore.RefMain, tip)
}
