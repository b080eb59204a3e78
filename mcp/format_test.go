package mcp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// TestToolErrorWords: the MCP server says what to do next with its tools,
// never with the CLI's commands or flags, from the store's typed errors.
func TestToolErrorWords(t *testing.T) {
	noRepo := t.TempDir()
	_, noRepoErr := gitstore.OpenIn(noRepo)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"no repository", noRepoErr, "no git repository at or above " + noRepo},
		{"secret", gitstore.CheckSecrets("deploy token is ghp_R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"), "refused: the text contains a secret (GitHub token at byte 16)"},
		{"document", &gitstore.DocumentError{ID: "3f2a9c41d0e8b7a2", Reason: "no text"}, "memory_forget 3f2a9c41d0e8b7a2"},
		{"invalid id", &memerr.InvalidInputError{Field: memerr.FieldID, Value: "zz", Reason: `"zz" is not a memory id; give at least 4 hex digits of an id`}, "shown by memory_list"},
		{"not found", fmt.Errorf("%w: no memory with id %q", memerr.ErrNoMemory, "ffff"), "no memory has that id"},
		{"busy", &memerr.BusyError{Op: memerr.BusyPurge, Reason: "could not record the purge on refs/memory/main"}, "call the tool again"},
		{"no remote", &memerr.NoRemoteError{Remote: "upstream"}, `no remote "upstream" is configured`},
		{"nothing to push", &memerr.NothingToPushError{Remote: "origin"}, "nothing to push"},
		{"ambiguous with an invalid document", &gitstore.AmbiguousError{Prefix: "3f2a", Candidates: []gitstore.Memory{{ID: "3f2a9c41d0e8b7a2", Type: gitstore.TypeInvalid, Text: gitstore.InvalidText}}}, "3f2a9c41d0e8b7a2 invalid: (invalid document)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := toolError(c.err).Error()
			require.Contains(t, msg, c.want)
			for _, cli := range []string{"git mem", "--global", "--allow-secret", "--private"} {
				require.NotContains(t, msg, cli)
			}
		})
	}
}
