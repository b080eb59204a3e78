package cmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIOversizedRemoteDocumentNeverBlocksSharing: a teammate pushes,
// with plain git, a memory document of more than 64 MiB (past anything
// git-mem reads). Every other clone's pull, sync and push go on: the
// document is skipped with a warning that names it, the rest is merged,
// and the store keeps working (every pull failed, calling the store
// damaged and asking for git fsck).
func TestCLIOversizedRemoteDocumentNeverBlocksSharing(t *testing.T) {
	const bigID = "5f2a9c41d0e8b7a2"
	for _, verb := range []string{"pull", "sync", "push"} {
		t.Run(verb, func(t *testing.T) {
			w := newSyncWorld(t)
			w.isolate()
			ann := w.clone("ann")
			w.memOKIn(ann, "add", "--", "Deploys run from the release branch")
			w.memOKIn(ann, "push")
			w.sandbox.plantDoc(ann, bigID, hostileDoc(t, bigID, map[string]any{"text": strings.Repeat("x", 65<<20)}), "mem: add 5f2a9c planted\n")
			w.gitIn(ann, "push", "-q", "origin", "refs/memory/main:refs/memory/main")

			bob := w.clone("bob")
			w.memOKIn(bob, "add", "--", "The staging database is reset nightly")
			out, errOut, code := w.memIn(bob, verb)
			require.Equal(t, 0, code, out+errOut)
			require.NotContains(t, out+errOut, "damaged")
			require.Contains(t, out, "not merged: memories/5f/"+bigID+".json from origin is invalid (")
			require.Contains(t, out, "over the 1048576-byte maximum")
			list := w.memOKIn(bob, "list")
			require.Contains(t, list, "Deploys run from the release branch")
			require.Contains(t, list, "The staging database is reset nightly")
			w.memOKIn(bob, "push")
			require.Contains(t, w.memOKIn(bob, "sync"), "up to date")

			// the clone that holds it reads around it, and can forget it
			out, errOut, code = w.memIn(ann, "list")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "Deploys run from the release branch")
			require.Contains(t, errOut, "memories/5f/"+bigID+".json")
			require.NotContains(t, errOut, "damaged")
			w.memOKIn(ann, "forget", bigID)
			_, errOut, code = w.memIn(ann, "list")
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut)
		})
	}
}
