//go:build unix

package cmd_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cachesHolding lists the files under the repository's <git dir>/mem that
// hold text.
func cachesHolding(t *testing.T, repo, text string) []string {
	t.Helper()
	var hold []string
	require.NoError(t, filepath.WalkDir(filepath.Join(repo, ".git", "mem"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), text) {
			hold = append(hold, p)
		}
		return nil
	}))
	return hold
}

// TestCLIPurgeKilledAfterTheRewrite: git mem forget --purge killed (kill
// -9) after it rewrote history and recorded the tombstone, before it
// scrubbed the caches, leaves no cache holding the text, and running it
// again finishes it (it said "not found", and the recall snapshot's delta
// kept the text).
func TestCLIPurgeKilledAfterTheRewrite(t *testing.T) {
	const text = "The build farm's admin console lives at farm-console.corp.internal port 8443"
	sb := newSandbox(t)
	sb.isolate()
	sb.memOK("add", "--", "Release notes are written in docs/releases before tagging")
	sb.memOK("recall", "--", "where are release notes written")
	id := strings.TrimSpace(sb.memOK("add", "--", text))
	full := strings.TrimSpace(sb.git("log", "-1", "--format=%(trailers:key=Memory-Id,valueonly)", "refs/memory/main"))
	require.True(t, strings.HasPrefix(full, id), full)
	require.NotEmpty(t, cachesHolding(t, sb.repo, text), "the caches hold the text before the purge")

	// a git that stops when the purge records itself in git config, after
	// the rewrite and the tombstone
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	reached := filepath.Join(bin, "reached")
	script := "#!/bin/sh\ncase \"$*\" in *mem.purged*) : > '" + reached + "'; sleep 60;; esac\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	c := exec.Command(binary, "forget", "--purge", id)
	c.Dir = sb.repo
	c.Env = append(sb.env(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, c.Start())
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(reached); err == nil {
			break
		}
		require.True(t, time.Now().Before(end), "the purge never reached git config")
	}
	require.NoError(t, syscall.Kill(-c.Process.Pid, syscall.SIGKILL))
	_ = c.Wait()

	require.NotContains(t, sb.git("log", "-p", "refs/memory/main"), text, "history was rewritten")
	require.Empty(t, cachesHolding(t, sb.repo, text), "no cache holds the text after the kill")
	require.Contains(t, sb.memOK("recall", "--", "where are release notes written"), "docs/releases")
	require.Empty(t, cachesHolding(t, sb.repo, text), "nor once a reader rebuilt them")

	// running it again finishes it; once finished, there is nothing to purge
	out, errOut, code := sb.mem("forget", "--purge", id)
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, out, "finishing the purge of "+full[:6])
	require.Empty(t, cachesHolding(t, sb.repo, text))
	_, errOut, code = sb.mem("forget", "--purge", full)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "not found")
	require.Contains(t, sb.git("config", "--get-all", "mem.purged"), full)
	_, err = os.Stat(filepath.Join(sb.repo, ".git", "mem", "purging", full))
	require.ErrorIs(t, err, os.ErrNotExist, "the purge's marker is gone once it finished")
	out, _, _ = sb.mem("recall", "--", "build farm admin console")
	require.NotContains(t, out, "farm-console")
}
