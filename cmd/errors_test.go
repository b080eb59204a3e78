package cmd

import (
	"fmt"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// TestMessageSaysWhatToDoWithTheCLI: the store's typed errors name no
// command; the CLI adds its own, also through a wrapping error.
func TestMessageSaysWhatToDoWithTheCLI(t *testing.T) {
	noRepo := t.TempDir()
	_, noRepoErr := gitstore.OpenIn(noRepo)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"not found", fmt.Errorf("%w: no memory with id %q", memerr.ErrNoMemory, "ffff"), `memory not found: no memory with id "ffff"; see git mem list (or git mem list --all for superseded ones)`},
		{"wrapped", fmt.Errorf("revising: %w", fmt.Errorf("%w: no memory with id %q", memerr.ErrNoMemory, "ffff")), `revising: memory not found: no memory with id "ffff"; see git mem list`},
		{"empty text", &memerr.InvalidInputError{Field: memerr.FieldText, Reason: memerr.ReasonEmpty}, "invalid input: the text is empty; pass the memory after --"},
		{"secret", gitstore.CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), "text contains a secret: GitHub token at byte 16; memory is shared through git, so never store credentials: remove it (refer to where the secret lives instead), or pass --allow-secret"},
		{"no repository", noRepoErr, "not a git repository: no git repository at or above " + noRepo + "; run git init, or pass --global to use your personal store"},
		{"private", &memerr.NoRepoError{Scope: string(gitstore.ScopePrivate)}, "not a git repository: --private needs a repository; run it inside one, or use --global for your personal store"},
		{"document", &gitstore.DocumentError{ID: "3f2a9c41d0e8b7a2", Reason: "no text"}, "it is skipped: remove it with git mem forget 3f2a9c41d0e8b7a2 (git mem history 3f2a9c41d0e8b7a2 shows its earlier versions)"},
		{"no remote", &memerr.NoRemoteError{Remote: "upstream"}, `memory remote: no remote "upstream" is configured; add one with git remote add upstream URL, set git config mem.remote NAME-OR-URL, or give the remote: git mem pull URL`},
		{"nothing to push", &memerr.NothingToPushError{Remote: "origin"}, "no memories yet: nothing to push: this repository has no project memory yet (git mem add, or git mem pull origin)"},
		{"push race", &memerr.BusyError{Op: memerr.BusyPush, Remote: "origin", Reason: "origin kept moving while pushing (9 attempts in 5m0s)"}, "memory ref is busy: origin kept moving while pushing (9 attempts in 5m0s); run git mem sync origin again"},
		{"purge race", &memerr.BusyError{Op: memerr.BusyPurge, Reason: "could not record the purge on refs/memory/main"}, "memory ref is busy: could not record the purge on refs/memory/main; run git mem forget --purge again"},
		{"sha256", &memerr.FormatError{Dir: "/src/.git", Extension: "objectformat", Value: "sha256"}, "git-mem keeps no memory in it and wrote nothing; this version of git-mem cannot keep memory in this repository (your personal store still works from a directory outside it: git mem add --global -- TEXT)"},
		{"another user's repository", &memerr.OwnershipError{Dir: "/src", Path: "/src/.git"}, "/src/.git is owned by another user, and git (and git-mem) work in such a repository only when git config --global safe.directory names it; nothing was read or written; if you trust it: git config --global --add safe.directory /src"},
		{"unknown extension", &memerr.FormatError{Dir: "/src/.git", Extension: "future", Value: "1"}, "sets extensions.future=1, which git-mem does not know; git-mem keeps no memory in it and wrote nothing; a newer git-mem may know it"},
		{"ambiguous with an invalid document", &gitstore.AmbiguousError{Prefix: "3f2a", Candidates: []gitstore.Memory{{ID: "3f2a9c41d0e8b7a2", Type: gitstore.TypeInvalid, Text: gitstore.InvalidText}}}, "3f2a9c41d0e8b7a2  invalid: (invalid document: see git mem doctor)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, message(c.err), c.want)
		})
	}
}

// TestMessageForOffersOnlyTheCommandsFlags: --allow-secret is offered by
// the commands that have it, and by no other.
func TestMessageForOffersOnlyTheCommandsFlags(t *testing.T) {
	env := &Env{}
	err := gitstore.CheckSecrets("token ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")
	require.ErrorIs(t, err, memerr.ErrSecret)
	for _, tc := range []struct {
		cmd   *cobra.Command
		offer bool
	}{
		{newAddCmd(env), true},
		{newReviseCmd(env), true},
		{newImportCmd(env), true},
		{newHandoffCmd(env), false},
		{newReviewCmd(env), false},
		{nil, false},
	} {
		name := "no command"
		if tc.cmd != nil {
			name = tc.cmd.Name()
		}
		msg := messageFor(tc.cmd, err)
		require.Contains(t, msg, "never store credentials", name)
		if tc.offer {
			require.Contains(t, msg, "--allow-secret", name)
		} else {
			require.NotContains(t, msg, "--allow-secret", name)
		}
	}
}
