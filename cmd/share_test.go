package cmd_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShareMergesWhatGitFetchBrought: after git mem share, a plain git
// fetch brings a teammate's memory, and the next git mem command sees it
// without git mem pull (it is merged first, once); so does a prompt hook.
func TestShareMergesWhatGitFetchBrought(t *testing.T) {
	w := newSyncWorld(t)
	a := w.clone("Ann")
	w.memOKIn(a, "add", "--", "Invoices are numbered per tenant, never globally")
	w.memOKIn(a, "push")
	c := w.clone("Cy")
	require.Contains(t, w.memOKIn(c, "share"), "the next git mem command or hook merges it")
	w.gitIn(c, "fetch", "-q")

	out, errOut, code := w.memIn(c, "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Invoices are numbered per tenant")
	require.Contains(t, errOut, "merged the memory git fetch brought from origin")
	require.Equal(t, w.gitIn(c, "rev-parse", "refs/memory/remotes/origin/main"), w.gitIn(c, "rev-parse", "refs/memory/main"), "a fast-forward")

	out, errOut, code = w.memIn(c, "list")
	require.Equal(t, 0, code)
	require.Empty(t, errOut, "nothing new: nothing merged, nothing said")
	require.Contains(t, out, "Invoices are numbered per tenant")

	// both sides wrote: the fetched memory is merged with a merge commit
	w.memOKIn(c, "add", "--", "Cy's local note about the ledger export")
	w.memOKIn(a, "add", "--", "Refund webhooks are retried three times by the payment provider")
	w.memOKIn(a, "push")
	w.gitIn(c, "fetch", "-q")
	out, errOut, code = w.memIn(c, "recall", "--", "refund webhook retries payment provider")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Refund webhooks are retried three times")
	require.Contains(t, errOut, "merged the memory git fetch brought from origin")
	parents := strings.Fields(w.gitIn(c, "log", "-1", "--format=%P", "refs/memory/main"))
	require.Len(t, parents, 2)
	require.Contains(t, w.memOKIn(c, "list"), "Cy's local note")

	// a hook merges too: the prompt hook injects what git fetch just brought
	w.memOKIn(a, "add", "--", "The staging database is reset every Sunday night at midnight UTC")
	w.memOKIn(a, "push")
	w.gitIn(c, "fetch", "-q")
	payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": c, "hook_event_name": "UserPromptSubmit",
		"prompt": "is the staging database reset every Sunday night at midnight UTC?", "transcript_path": "/t.jsonl"})
	hook := exec.Command(binary, "hook", "prompt", "--agent", "claude")
	hook.Dir = w.home
	hook.Env = w.env()
	hook.Stdin = strings.NewReader(string(payload))
	got, err := hook.Output()
	require.NoError(t, err)
	require.Contains(t, string(got), "staging database is reset every Sunday")
	require.Equal(t, w.gitIn(c, "rev-parse", "refs/memory/remotes/origin/main"), w.gitIn(c, "merge-base", "refs/memory/main", "refs/memory/remotes/origin/main"))
}
