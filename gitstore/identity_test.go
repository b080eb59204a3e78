package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// unsetenv removes k for the test and restores it after.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	require.NoError(t, os.Unsetenv(k))
}

// TestIdentityMatchesGitCommit: memory commits are authored and committed as
// git commit would in the same repository, including identities that the
// global config pulls in with include and includeIf, which git-mem's config
// reader (internal/gitconfig) does not follow.
func TestIdentityMatchesGitCommit(t *testing.T) {
	const global = `[user]
	name = Home Person
	email = home@example.com
[include]
	path = ~/editor.inc
[includeIf "gitdir:~/job/"]
	path = ~/job.inc
`
	const plain = "[user]\n\tname = Plain Person\n\temail = plain@example.com\n"
	cases := []struct {
		name      string
		global    string   // ~/.gitconfig; the one above when empty
		repo      string   // under HOME
		env       []string // extra environment, KEY=VALUE
		author    string
		committer string
	}{
		{"includeIf gitdir matches", "", "job/app", nil, "Ada Work <ada@work.example>", "Ada Work <ada@work.example>"},
		{"outside the includeIf directory", "", "play/app", nil, "Home Person <home@example.com>", "Home Person <home@example.com>"},
		{"environment wins for the author only", "", "job/app", []string{"GIT_AUTHOR_NAME=Env Author", "GIT_AUTHOR_EMAIL=env@example.com"}, "Env Author <env@example.com>", "Ada Work <ada@work.example>"},
		{"committer from the environment", "", "play/app", []string{"GIT_COMMITTER_NAME=Bot", "GIT_COMMITTER_EMAIL=bot@example.com"}, "Home Person <home@example.com>", "Bot <bot@example.com>"},
		{"no include: read without git", plain, "job/app", nil, "Plain Person <plain@example.com>", "Plain Person <plain@example.com>"},
		{"git -c, as a calling git passes it", plain, "job/app", []string{"GIT_CONFIG_PARAMETERS='user.name'='Dash C'"}, "Dash C <plain@example.com>", "Dash C <plain@example.com>"},
		{"author.email over user.email", plain + "[author]\n\temail = a@example.com\n", "job/app", nil, "Plain Person <a@example.com>", "Plain Person <plain@example.com>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
				unsetenv(t, k)
			}
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			cfg := tc.global
			if cfg == "" {
				cfg = global
			}
			require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644))
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
			gitstoretest.CheckedByGit(t, dir)
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
