package gitstore

import (
	"context"
	"errors"
	"testing"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

// TestTypedErrors: the store's errors carry their facts in types, match
// their sentinels, and name no command or flag of any surface.
func TestTypedErrors(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		sentinel error
		target   any
	}{
		{"not found", func() error { _, _, err := (&Set{Repo: NewMemoryRepo()}).Find("ffff"); return err }(), memerr.ErrNoMemory, nil},
		{"invalid id", func() error { _, err := NormalizePrefix("zz"); return err }(), memerr.ErrInvalid, new(*memerr.InvalidInputError)},
		{"empty text", validateText("  "), memerr.ErrInvalid, new(*memerr.InvalidInputError)},
		{"secret", CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), memerr.ErrSecret, new(*memerr.SecretError)},
		{"no repo", func() error { _, err := OpenIn(t.TempDir()); return err }(), memerr.ErrNoRepo, new(*memerr.NoRepoError)},
		{"private without repo", func() error { _, err := (&Set{}).Writable(ScopePrivate); return err }(), memerr.ErrNoRepo, new(*memerr.NoRepoError)},
	}
	repo, err := OpenIn(gitInit(t))
	require.NoError(t, err)
	cases = append(cases, []struct {
		name     string
		err      error
		sentinel error
		target   any
	}{
		{"no remote", func() error { _, err := repo.ResolveRemote(context.Background(), ""); return err }(), memerr.ErrRemote, new(*memerr.NoRemoteError)},
		{"nothing to push", func() error {
			_, err := repo.Push(context.Background(), Writer{}, &Remote{Display: "origin"}, PushOptions{})
			return err
		}(), memerr.ErrEmptyStore, new(*memerr.NothingToPushError)},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Error(t, c.err)
			require.ErrorIs(t, c.err, c.sentinel)
			if c.target != nil {
				require.True(t, errors.As(c.err, c.target))
			}
			for _, cli := range []string{"git mem", "--global", "--private", "--allow-secret", "memory_"} {
				require.NotContains(t, c.err.Error(), cli)
			}
		})
	}
	var sec *memerr.SecretError
	require.ErrorAs(t, CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), &sec)
	require.Len(t, sec.Findings, 1)
	require.Equal(t, "GitHub token", sec.Findings[0].Kind)
	require.Equal(t, 16, sec.Findings[0].Start)
	require.NotContains(t, sec.Error(), "R8kZt2")
}
