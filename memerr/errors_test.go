package memerr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/secret"
)

// TestTypedErrorsMatchTheirSentinels: each typed error is its sentinel for
// errors.Is, through any wrapping, and says its facts without naming a
// command or flag of any surface.
func TestTypedErrorsMatchTheirSentinels(t *testing.T) {
	for _, tc := range []struct {
		err      error
		sentinel error
		want     string
	}{
		{&InvalidInputError{Field: FieldText, Reason: ReasonEmpty}, ErrInvalid, "invalid input: the text is empty"},
		{&SecretError{Findings: []secret.Finding{{Kind: "GitHub token", Start: 16}}}, ErrSecret, "text contains a secret: GitHub token at byte 16"},
		{&NoRepoError{Dir: "/src"}, ErrNoRepo, "not a git repository: no git repository at or above /src"},
		{&NoRepoError{Scope: "private"}, ErrNoRepo, "not a git repository: the private memory needs a repository"},
		{&DamagedError{What: "tree", Object: "abc", Missing: true, Err: errors.New("object not found")}, ErrCorrupt, "memory store is damaged: tree abc is missing from the object database; run git fsck: object not found"},
		{&DamagedError{What: "commit", Object: "abc", Err: errors.New("zlib: invalid header")}, ErrCorrupt, "memory store is damaged: cannot read commit abc (zlib: invalid header); run git fsck"},
		{&NoRemoteError{Remote: "origin"}, ErrRemote, `memory remote: no remote "origin" is configured`},
		{&NothingToPushError{Remote: "origin"}, ErrEmptyStore, "no memories yet: nothing to push: this repository has no project memory yet"},
		{&BusyError{Op: BusyPush, Remote: "origin", Reason: "the remote's ref kept moving"}, ErrBusy, "memory ref is busy: the remote's ref kept moving"},
		{&ReadOnlyError{Scope: "linked:team"}, ErrInvalid, "invalid input: the store linked:team is read-only here"},
		{&FormatError{Dir: "/r/.git", Extension: "refstorage", Value: "reftable"}, ErrUnsupportedFormat, "unsupported repository format: the repository at /r/.git keeps its refs in the reftable format (extensions.refStorage=reftable), and git-mem writes loose refs and packed-refs only; git-mem keeps no memory in it and wrote nothing"},
		{&OwnershipError{Dir: "/src", Path: "/src/.git"}, errUnsafeRepo, "repository owned by someone else: /src/.git is owned by another user, and git (and git-mem) work in such a repository only when git config --global safe.directory names it; nothing was read or written"},
		{ErrNoMemory, ErrNotFound, "memory not found"},
		{ErrNotLinked, ErrNotFound, "memory not found"},
		{ErrNoProposal, ErrNotFound, "memory not found"},
	} {
		t.Run(fmt.Sprintf("%T", tc.err), func(t *testing.T) {
			require.Equal(t, tc.want, tc.err.Error())
			require.ErrorIs(t, tc.err, tc.sentinel)
			wrapped := errors.Join(errors.New("reading"), tc.err)
			require.ErrorIs(t, wrapped, tc.sentinel)
			// git's own commands (git fsck, git config) are facts; git-mem's are words
			for _, cli := range []string{"git mem", "--private", "--allow-secret", "memory_"} {
				require.NotContains(t, tc.err.Error(), cli)
			}
		})
	}
	// a narrow sentinel is not every other narrow sentinel
	require.NotErrorIs(t, ErrNoMemory, ErrNotLinked)
	require.NotErrorIs(t, ErrNotLinked, ErrNoProposal)
}

// TestFormatErrorWords: each refusal says which format and why in words a
// user can act on.
func TestFormatErrorWords(t *testing.T) {
	for _, tc := range []struct {
		err  FormatError
		want string
	}{
		{FormatError{Dir: "/r/.git", Extension: "objectformat", Value: "sha256"}, "unsupported repository format: the repository at /r/.git names its objects with SHA-256 (extensions.objectFormat=sha256), and git-mem writes SHA-1 objects only; git-mem keeps no memory in it and wrote nothing"},
		{FormatError{Dir: "/r/.git", Extension: "refstorage", Value: "reftable"}, "unsupported repository format: the repository at /r/.git keeps its refs in the reftable format (extensions.refStorage=reftable), and git-mem writes loose refs and packed-refs only; git-mem keeps no memory in it and wrote nothing"},
		{FormatError{Dir: "/r/.git", Extension: "x", Value: "1"}, "unsupported repository format: the repository at /r/.git sets extensions.x=1, which git-mem does not know; git-mem keeps no memory in it and wrote nothing"},
	} {
		require.Equal(t, tc.want, tc.err.Error())
	}
}
