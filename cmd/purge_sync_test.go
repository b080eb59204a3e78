package cmd_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// reachableHolding lists the objects reachable from any ref of the
// repository at dir whose content holds s, asking git.
func (w *syWorld) reachableHolding(dir, s string) []string {
	w.t.Helper()
	var ids bytes.Buffer
	for _, l := range strings.Split(w.gitIn(dir, "rev-list", "--objects", "--all"), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			ids.WriteString(f[0] + "\n")
		}
	}
	var out []string
	for _, id := range strings.Fields(ids.String()) {
		c := exec.Command("git", "-C", dir, "cat-file", "-p", id)
		c.Env = w.env()
		data, err := c.Output()
		require.NoError(w.t, err)
		if bytes.Contains(data, []byte(s)) {
			out = append(out, id)
		}
	}
	return out
}

// TestPurgeTravelsWithTheMemoryRef: a memory purged in one clone stays gone
// through pull and sync (a pull merged the remote's old history back in as a
// parent: the text was reachable again and its subject in git log), the
// push replaces the remote's history, and a teammate's next pull removes it
// from their clone too, saying so.
func TestPurgeTravelsWithTheMemoryRef(t *testing.T) {
	w := newSyncWorld(t)
	a, b := w.clone("Ann"), w.clone("Bob")
	const leak = "zebra-quokka-17"
	w.memOKIn(a, "add", "--", "CI runs on GitHub Actions")
	id := strings.TrimSpace(w.memOKIn(a, "add", "--", "The internal build host is "+leak+" behind the office VPN"))
	w.memOKIn(a, "sync")
	w.memOKIn(b, "sync")
	w.memOKIn(b, "add", "--", "Use pnpm, not npm")
	w.memOKIn(b, "sync")
	require.NotEmpty(t, w.reachableHolding(b, leak))

	w.memOKIn(a, "forget", "--purge", id)
	require.Empty(t, w.reachableHolding(a, leak))
	tombstones := w.gitIn(a, "ls-tree", "--name-only", "refs/memory/main", "purged/")
	require.Regexp(t, "^purged/"+id+"[0-9a-f]{10}$", tombstones, "the purge is recorded in the memory ref, by id")
	require.NotContains(t, w.gitIn(a, "cat-file", "-p", "refs/memory/main:"+tombstones), leak)

	// A pull brings the remote's old history: it must not come back.
	w.memOKIn(a, "pull")
	require.Empty(t, w.reachableHolding(a, leak), "a pull never brings a purged memory's history back")
	require.NotContains(t, w.gitIn(a, "log", "--all", "--format=%B"), leak)
	require.Contains(t, w.memOKIn(a, "list"), "Use pnpm", "the teammate's memory is merged")

	// The sync replaces the remote's history.
	w.memOKIn(a, "sync")
	require.Empty(t, w.reachableHolding(w.remote, leak), "the remote no longer reaches the text")

	// The teammate's next pull removes it from their clone, and says so.
	require.Contains(t, w.memOKIn(b, "recall", "--", "internal build host office VPN"), leak)
	out, errOut, code := w.memIn(b, "pull")
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, errOut, "1 memory purged by a teammate were removed")
	require.Empty(t, w.reachableHolding(b, leak), "the teammate's clone no longer reaches the text")
	require.Empty(t, filesHolding(t, filepath.Join(b, ".git", "mem"), leak), "nor do its caches")
	require.NotContains(t, w.memOKIn(b, "list"), leak)
	require.NotContains(t, w.memOKIn(b, "recall", "--", "internal build host office VPN"), leak)

	// Both sides write on; syncs keep it gone and the clones equal.
	w.memOKIn(b, "add", "--", "Release notes live in CHANGELOG.md")
	w.memOKIn(b, "sync")
	w.memOKIn(a, "sync")
	w.memOKIn(b, "sync")
	tree := w.gitIn(w.remote, "rev-parse", "refs/memory/main^{tree}")
	for _, dir := range []string{a, b} {
		require.Equal(t, tree, w.gitIn(dir, "rev-parse", "refs/memory/main^{tree}"))
		require.Empty(t, w.reachableHolding(dir, leak))
		require.Equal(t, 3, w.count(dir), "three memories")
		w.gitIn(dir, "fsck", "--strict", "--no-progress")
	}
	require.Empty(t, w.reachableHolding(w.remote, leak))
	w.gitIn(w.remote, "fsck", "--strict", "--no-progress")
}
