package handoff_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

func repoWithCommit(t *testing.T) *gitstore.Set {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty", "-m", "init"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	gitstoretest.CheckedByGit(t, dir)
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	return set
}

func TestSaveAndLatest(t *testing.T) {
	ctx := context.Background()
	set := repoWithCommit(t)
	w := gitstore.Writer{Agent: "codex", Session: "s"}

	m, err := handoff.Latest(ctx, set, "")
	require.NoError(t, err)
	require.Nil(t, m)

	cases := []struct {
		name string
		in   handoff.HandoffInput
		err  error
	}{
		{"empty", handoff.HandoffInput{}, memerr.ErrInvalid},
		{"blank", handoff.HandoffInput{Done: "  ", Warnings: []string{""}}, memerr.ErrInvalid},
		{"secret", handoff.HandoffInput{Next: "deploy with ghp_Zx8vQ2mK7pL4nR9sT1wY6bC3dF5gH0jE8aU2"}, memerr.ErrSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := handoff.Save(ctx, set, w, c.in, index.Access{})
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
			}
		})
	}
	first, err := handoff.Save(ctx, set, w, handoff.HandoffInput{Done: "a", Next: "b", Warnings: []string{"c"}}, index.Access{})
	require.NoError(t, err)
	require.Equal(t, gitstore.TypeHandoff, first.Type)
	require.Contains(t, first.Tags, "branch:main")
	require.Equal(t, "Done: a\nNext: b\nWarning: c", first.Text)
	other, err := handoff.Save(ctx, set, w, handoff.HandoffInput{Next: "on the feature", Branch: "feature/X"}, index.Access{})
	require.NoError(t, err)
	require.Contains(t, other.Tags, "branch:feature/x")

	second, err := handoff.Save(ctx, set, w, handoff.HandoffInput{Next: "d"}, index.Access{})
	require.NoError(t, err)
	got, err := handoff.Latest(ctx, set, "main")
	require.NoError(t, err)
	require.Equal(t, second.ID, got.ID)
	got, err = handoff.Latest(ctx, set, "feature/X")
	require.NoError(t, err)
	require.Equal(t, other.ID, got.ID)
	_, old, err := set.Find(first.ID)
	require.NoError(t, err)
	require.Equal(t, second.ID, old.SupersededBy, "a new handoff supersedes the branch's previous one")

	_, err = handoff.Save(ctx, &gitstore.Set{}, w, handoff.HandoffInput{Next: "x"}, index.Access{})
	require.ErrorIs(t, err, memerr.ErrNoRepo)
}

// The start cache follows adds, changes and forgets, and can be deleted.
func TestStartCacheFollowsTheStore(t *testing.T) {
	ctx := context.Background()
	set := repoWithCommit(t)
	st := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject)
	w := gitstore.Writer{Agent: "cli"}
	text := func() string {
		res, err := handoff.SessionStart(ctx, set, handoff.StartOptions{Branch: "main", Now: time.Now().Add(time.Minute)})
		require.NoError(t, err)
		return res.Text
	}
	require.Empty(t, text())
	p, err := st.Add(ctx, w, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs"})
	require.NoError(t, err)
	require.Contains(t, text(), "Prefer tabs")
	_, err = st.Revise(ctx, w, p.ID, "Prefer spaces")
	require.NoError(t, err)
	require.Contains(t, text(), "Prefer spaces")
	require.NotContains(t, text(), "Prefer tabs")
	_, err = st.Forget(ctx, w, p.ID)
	require.NoError(t, err)
	require.NotContains(t, text(), "Prefer")
	_, err = st.Add(ctx, w, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer short names"})
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(set.Repo.CommonDir, "mem", "cache")))
	require.Contains(t, text(), "Prefer short names")
	require.NoError(t, os.WriteFile(filepath.Join(set.Repo.CommonDir, "mem", "cache", "start.json"), []byte("{broken"), 0o644))
	require.True(t, strings.Contains(text(), "Prefer short names"), "a broken cache is rebuilt")
}
