//go:build unix

package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/hooks"
)

// readOnlyGit makes the repository's .git read-only for the processes
// asProcess prepares: by its permissions, or, for root (whom permissions
// do not stop), by running them as the unprivileged user nobody, to whom
// the repository's files were never writable.
func readOnlyGit(t *testing.T, dir string, bins ...string) (asProcess func(c *exec.Cmd)) {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
	if os.Geteuid() != 0 {
		chmodTree(t, gitDir, "a-w")
		t.Cleanup(func() { chmodTree(t, gitDir, "u+w") })
		return func(*exec.Cmd) {}
	}
	// nobody must reach the repository, the test's HOME and the binaries,
	// read them, and be allowed another user's repository, as git allows it
	home := os.Getenv("HOME")
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[safe]\n\tdirectory = *\n"), 0o644))
	for _, p := range append([]string{dir, home}, bins...) {
		chmodTree(t, p, "a+rX")
		for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
			st, err := os.Stat(d)
			require.NoError(t, err)
			if st.Mode().Perm()&0o005 != 0o005 {
				require.NoError(t, os.Chmod(d, st.Mode().Perm()|0o005))
			}
		}
	}
	chmodTree(t, gitDir, "go-w")
	return func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
}

func chmodTree(t *testing.T, dir, mode string) {
	t.Helper()
	out, err := exec.Command("chmod", "-R", mode, dir).CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestHooksWithReadOnlyGit: with .git read-only, the session-start and
// prompt hooks of both binaries still inject what git mem recall answers
// (they injected nothing: the session's files could not be written), and
// git mem reindex exits 1 saying it could not write (it reported success).
func TestHooksWithReadOnlyGit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	gitMem, hookBin := buildBinaries(t)
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Text: "Run the billing tests with make test-billing, they need Postgres"},
		seedMem{Text: "Deploys run from the release branch every Tuesday"},
	)
	as := readOnlyGit(t, dir, filepath.Dir(gitMem))
	run := func(stdin string, bin string, args ...string) (string, string, int) {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir = dir
		c.Stdin = strings.NewReader(stdin)
		as(c)
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

	out, errOut, code := run("", gitMem, "recall", "--", "how do I run the billing tests")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "make test-billing", "recall answers from a read-only .git")

	for _, tc := range []struct {
		name, event, hookEvent string
		extra                  map[string]any
	}{
		{"session-start", "session-start", "SessionStart", map[string]any{"source": "startup"}},
		{"prompt", "prompt", "UserPromptSubmit", map[string]any{"prompt": "how do I run the billing tests"}},
	} {
		for _, bin := range []struct {
			name string
			args []string
		}{
			{"git-mem-hook", []string{hookBin, tc.event, "--agent", "claude"}},
			{"git mem hook", []string{gitMem, "hook", tc.event, "--agent", "claude"}},
		} {
			t.Run(tc.name+" "+bin.name, func(t *testing.T) {
				p := payload("claude", tc.hookEvent, "ro-"+tc.name+"-"+strings.ReplaceAll(bin.name, " ", "-"), dir, tc.extra)
				out, errOut, code := run(p, bin.args[0], bin.args[1:]...)
				require.Equal(t, 0, code, errOut)
				require.Contains(t, injected(t, &hooks.Outcome{Output: []byte(out)}), "make test-billing")
			})
		}
	}

	out, errOut, code = run("", gitMem, "reindex")
	require.Equal(t, 1, code, out+errOut)
	require.NotContains(t, out, "indexed")
	require.Contains(t, errOut, "could not write the recall snapshot")
	require.Contains(t, errOut, "make it writable")
}
