package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// unsetenv removes k for the test and restores it after.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	require.NoError(t, os.Unsetenv(k))
}

// TestIdentityMatchesGitCommit: memory commits are authored and committed as
// git commit would in the same repository, including identities that the
// global config pulls in with include and includeIf, which go-git's config
// reader does not follow.
func TestIdentityMatchesGitCommit(t *testing.T) {
	const global = `[user]
	name = Home Person
	email = home@example.com
[include]
	path = ~/editor.inc
[includeIf "gitdir:~/job/"]
	path = ~/job.inc
`
	cases := []struct {
		name      string
		repo      string   // under HOME
		env       []string // extra environment, KEY=VALUE
		author    string
		committer string
	}{
		{"includeIf gitdir matches", "job/app", nil, "Ada Work <ada@work.example>", "Ada Work <ada@work.example>"},
		{"outside the includeIf directory", "play/app", nil, "Home Person <home@example.com>", "Home Person <home@example.com>"},
		{"environment wins for the author only", "job/app", []string{"GIT_AUTHOR_NAME=Env Author", "GIT_AUTHOR_EMAIL=env@example.com"}, "Env Author <env@example.com>", "Ada Work <ada@work.example>"},
		{"committer from the environment", "play/app", []string{"GIT_COMMITTER_NAME=Bot", "GIT_COMMITTER_EMAIL=bot@example.com"}, "Home Person <home@example.com>", "Bot <bot@example.com>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE"} {
				unsetenv(t, k)
			}
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(home, "editor.inc"), []byte("[core]\n\teditor = true\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(home, "job.inc"), []byte("[user]\n\tname = Ada Work\n\temail = ada@work.example\n"), 0o644))
			dir := filepath.Join(home, tc.repo)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			git := func(args ...string) string {
				c := exec.Command("git", append([]string{"-C", dir}, args...)...)
				out, err := c.CombinedOutput()
				require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
				return strings.TrimSpace(string(out))
			}
			git("init", "-q", "-b", "main")
			git("commit", "-q", "--allow-empty", "-m", "a user's own commit")

			r, err := Open(dir)
			require.NoError(t, err)
			s := NewStore(r, RefMain, ScopeProject)
			m, err := s.Add(context.Background(), Writer{Agent: "test"}, NewMemory{Type: TypeFact, Text: "the API listens on port 8080"})
			require.NoError(t, err)

			const format = "--format=%an <%ae>|%cn <%ce>"
			want := tc.author + "|" + tc.committer
			require.Equal(t, want, git("log", "-1", format, "HEAD"), "the test's expectation is what git commit does")
			require.Equal(t, want, git("log", "-1", format, RefMain))
			require.Equal(t, tc.author, m.Author)
		})
	}
}
