package gitstore

import (
	"context"
	"errors"
	"testing"

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
		{"not found", func() error { _, _, err := (&Set{Repo: NewMemoryRepo()}).Find("ffff"); return err }(), ErrNoMemory, nil},
		{"no memory is not found", ErrNoMemory, ErrNotFound, nil},
		{"not linked is not found", ErrNotLinked, ErrNotFound, nil},
		{"no proposal is not found", ErrNoProposal, ErrNotFound, nil},
		{"invalid id", func() error { _, err := normalizePrefix("zz"); return err }(), ErrInvalid, new(*InvalidInputError)},
		{"empty text", validateText("  "), ErrInvalid, new(*InvalidInputError)},
		{"secret", CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), ErrSecret, new(*SecretError)},
		{"no repo", func() error { _, err := OpenIn(t.TempDir()); return err }(), ErrNoRepo, new(*NoRepoError)},
		{"private without repo", func() error { _, err := (&Set{}).Writable(ScopePrivate); return err }(), ErrNoRepo, new(*NoRepoError)},
	}
	repo, err := OpenIn(gitInit(t))
	require.NoError(t, err)
	cases = append(cases, []struct {
		name     string
		err      error
		sentinel error
		target   any
	}{
		{"no remote", func() error { _, err := repo.ResolveRemote(context.Background(), ""); return err }(), ErrRemote, new(*NoRemoteError)},
		{"nothing to push", func() error {
			_, err := repo.Push(context.Background(), Writer{}, &Remote{Display: "origin"}, PushOptions{})
			return err
		}(), ErrEmptyStore, new(*NothingToPushError)},
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
	var sec *SecretError
	require.ErrorAs(t, CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), &sec)
	require.Len(t, sec.findings, 1)
	require.Equal(t, "GitHub token", sec.findings[0].Kind)
	require.Equal(t, 16, sec.findings[0].Start)
	require.NotContains(t, sec.Error(), "R8kZt2")
}
