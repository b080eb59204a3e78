package handoff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// The start cache is a head (tips, subagent keys, counts), the standing
// memories a line each, then the recent ones, decoded only when asked for.
// A broken recent line never hides the rest, and is rebuilt.
func TestStartCacheIsReadInParts(t *testing.T) {
	ctx := context.Background()
	set, st := bootRepo(t)
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs in Go files"})
	recentMem := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The ledger stores amounts in cents"})

	standing, recent, _, err := startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Len(t, recent(), 1)

	path := cachePath(set)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, lines, 3, "the head, the standing memory, the recent one")
	require.Contains(t, string(lines[0]), `"standing":1,"recent":1`)
	require.Contains(t, string(lines[1]), "Prefer tabs")
	require.Contains(t, string(lines[2]), "amounts in cents")

	// an unchanged store: the head and the standing line give the standing
	// memories, whatever the recent line holds
	broken := append(bytes.Join(lines[:2], []byte("\n")), []byte("\nproject {broken\n")...)
	require.NoError(t, os.WriteFile(path, broken, 0o600))
	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Empty(t, recent(), "a broken recent line shows nothing")
	require.NoFileExists(t, path, "and is removed, to be rebuilt")

	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	got := recent()
	require.Len(t, got, 1)
	require.Equal(t, recentMem.ID, got[0].M.ID)

	// a changed store with a broken recent line: the change is journalled
	// (the recent lines are not decoded to be journalled after), the broken
	// line is found when they are, and the next start rebuilds the cache
	require.NoError(t, os.WriteFile(path, broken, 0o600))
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Refunds are reconciled nightly"})
	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Empty(t, recent())
	require.NoFileExists(t, path)
	standing, recent, _, err = startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	require.Len(t, standing, 1)
	require.Len(t, recent(), 2)
}

// cacheChange is a kind of change a start cache follows.
type cacheChange struct {
	name   string
	change func()
}

// cacheChanges are the kinds of change a start cache follows, made on st,
// which holds the preference pref and the fact fact.
func cacheChanges(t *testing.T, st *gitstore.Store, pref, fact *gitstore.Memory) []cacheChange {
	ctx := context.Background()
	w := gitstore.Writer{Agent: "test"}
	return []cacheChange{
		{"a preference added", func() {
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Answer in short paragraphs"})
		}},
		{"a fact added", func() {
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Refunds are reconciled nightly"})
		}},
		{"two facts added", func() {
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Invoices are numbered per tenant"})
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Exports run after midnight UTC"})
		}},
		{"a preference revised", func() {
			_, err := st.Revise(ctx, w, pref.ID, "Prefer spaces in Go files")
			require.NoError(t, err)
		}},
		{"a fact revised", func() {
			_, err := st.Revise(ctx, w, fact.ID, "The ledger stores amounts in minor units")
			require.NoError(t, err)
		}},
		{"a subagent's memory", func() {
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The importer skips empty rows", Tags: []string{SubagentTagPrefix + "explorer"}})
		}},
		{"a pinned fact", func() {
			addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Never deploy on Fridays", Pinned: true})
		}},
		{"a preference forgotten", func() {
			_, err := st.Forget(ctx, w, pref.ID)
			require.NoError(t, err)
		}},
		{"a fact forgotten", func() {
			_, err := st.Forget(ctx, w, fact.ID)
			require.NoError(t, err)
		}},
	}
}

// cacheProbes reads the set's start cache for a test: how many journal
// lines it has, what startMemories answers (as comparable text), and what
// a cache built from scratch answers (the file is put back after).
func cacheProbes(t *testing.T, set *gitstore.Set) (journal func() int, view, fresh func() string) {
	ctx := context.Background()
	path := cachePath(set)
	journal = func() int {
		t.Helper()
		c := readStartCache(path)
		require.NotNil(t, c)
		return c.journaled
	}
	view = func() string {
		t.Helper()
		standing, recent, subagent, err := startMemories(ctx, set, bootNow)
		require.NoError(t, err)
		var b strings.Builder
		for _, e := range standing {
			fmt.Fprintf(&b, "standing %s %s %q\n", e.Scope, e.M.ID, e.M.Text)
		}
		for _, e := range recent() {
			fmt.Fprintf(&b, "recent %s %s %q\n", e.Scope, e.M.ID, e.M.Text)
		}
		fmt.Fprintf(&b, "subagent %v\n", slices.Sorted(maps.Keys(subagent)))
		return b.String()
	}
	fresh = func() string {
		t.Helper()
		saved, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.Remove(path))
		v := view()
		require.NoError(t, os.WriteFile(path, saved, 0o600))
		return v
	}
	return journal, view, fresh
}

// A start that brings the cache forward appends one journal line instead
// of rewriting the file; read back, journal and all, the cache gives what a
// cache built from scratch gives, after every kind of change; past
// maxJournal lines the file is rewritten.
func TestStartCacheJournal(t *testing.T) {
	set, st := bootRepo(t)
	journal, view, fresh := cacheProbes(t, set)

	pref := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs in Go files"})
	fact := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The ledger stores amounts in cents"})
	view()
	require.Equal(t, 0, journal(), "built whole")

	changes := cacheChanges(t, st, pref, fact)
	for i, c := range changes {
		c.change()
		got := view()
		require.Equal(t, 1+i, journal(), "%s: one journal line more", c.name)
		require.Equal(t, fresh(), got, "%s: the journalled cache answers as a fresh one", c.name)
		require.Equal(t, got, view(), "%s: and reads back the same", c.name)
	}
	for journal() > 0 {
		addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: fmt.Sprintf("Fact number %d about the importer", journal())})
		got := view()
		require.LessOrEqual(t, journal(), maxJournal, "the journal is bounded")
		require.Equal(t, fresh(), got)
	}
}

// A writer's JournalWrites leaves the start cache current: after every
// kind of change, one journal line more, which the next start reads
// without bringing anything forward (the file is left as it is) and which
// answers as a cache built from scratch; a write that finds the journal
// full rewrites the cache whole; without a cache it writes none.
func TestJournalWrites(t *testing.T) {
	ctx := context.Background()
	set, st := bootRepo(t)
	path := cachePath(set)
	journal, view, fresh := cacheProbes(t, set)

	pref := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs in Go files"})
	JournalWrites(ctx, set)
	require.NoFileExists(t, path, "no cache: left to the next start")
	fact := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The ledger stores amounts in cents"})
	view()
	require.Equal(t, 0, journal())

	changes := cacheChanges(t, st, pref, fact)
	for i, c := range changes {
		c.change()
		JournalWrites(ctx, set)
		require.Equal(t, 1+i, journal(), "%s: one journal line more", c.name)
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		got := view()
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, before, after, "%s: the next start finds the cache current", c.name)
		require.Equal(t, fresh(), got, "%s: and it answers as a fresh one", c.name)
	}
	for journal() < maxJournal {
		addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeFact, Text: fmt.Sprintf("Fact number %d about the importer", journal())})
		JournalWrites(ctx, set)
	}
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Name tests after what they prove"})
	JournalWrites(ctx, set)
	require.Equal(t, 0, journal(), "a full journal is rewritten whole")
	require.Equal(t, fresh(), view())
}

// readStartCache applies a journal line only from the tips reached so far:
// one written from other tips (a concurrent start's), torn, or holding a
// memory that is no valid document is skipped.
func TestStartCacheJournalFollowsTips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "start.json")
	_, st := bootRepo(t)
	a := cachedMem{gitstore.ScopeProject, addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs"})}
	b := cachedMem{gitstore.ScopeProject, addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer short names"})}
	ka, kb := cacheKey(a.Scope, a.M.ID), cacheKey(b.Scope, b.M.ID)
	invalid := *b.M
	invalid.Trust = 7
	bad := cachedMem{b.Scope, &invalid}
	c := newStartCache()
	c.Tips[gitstore.ScopeProject] = "t1"
	c.Standing[ka] = a
	c.save(path)
	base, err := os.ReadFile(path)
	require.NoError(t, err)
	entry := func(from, to string, ops ...cacheOp) string {
		line, err := json.Marshal(journalEntry{From: map[gitstore.Scope]string{gitstore.ScopeProject: from}, To: map[gitstore.Scope]string{gitstore.ScopeProject: to}, Ops: ops})
		require.NoError(t, err)
		return string(line) + "\n"
	}
	tests := []struct {
		name     string
		journal  string
		tip      string
		standing []string
	}{
		{"none", "", "t1", []string{ka}},
		{"one from the tips", entry("t1", "t2", cacheOp{Put: &b}), "t2", []string{ka, kb}},
		{"a chain", entry("t1", "t2", cacheOp{Put: &b}) + entry("t2", "t3", cacheOp{Del: ka}), "t3", []string{kb}},
		{"one from other tips", entry("t0", "t2", cacheOp{Del: ka}), "t1", []string{ka}},
		{"a torn line, then a sound one", entry("t1", "t2", cacheOp{Put: &b})[:20] + "\n" + entry("t1", "t3", cacheOp{Del: ka}), "t3", nil},
		{"an invalid memory, then a sound line", entry("t1", "t2", cacheOp{Put: &bad}) + entry("t1", "t3", cacheOp{Put: &b}), "t3", []string{ka, kb}},
	}
	for _, tc := range tests {
		require.NoError(t, os.WriteFile(path, append(append([]byte(nil), base...), tc.journal...), 0o600))
		got := readStartCache(path)
		require.NotNil(t, got, tc.name)
		require.Equal(t, tc.tip, got.Tips[gitstore.ScopeProject], tc.name)
		require.ElementsMatch(t, tc.standing, slices.Collect(maps.Keys(got.Standing)), tc.name)
		if put, ok := got.Standing[kb]; ok {
			want, err := b.M.Encode()
			require.NoError(t, err)
			doc, err := put.M.Encode()
			require.NoError(t, err)
			require.Equal(t, string(want), string(doc), "%s: the journal's memory reads back whole", tc.name)
		}
	}
}

// TestStartCacheDamagedHead: a head whose counts do not match the lines
// that follow (a cut or damaged file) is no cache, and is rebuilt; a count
// never sizes anything.
func TestStartCacheDamagedHead(t *testing.T) {
	ctx := context.Background()
	set, st := bootRepo(t)
	addMem(t, st, gitstore.NewMemory{Type: gitstore.TypePreference, Text: "Prefer tabs in Go files"})
	path := cachePath(set)
	require.NoError(t, os.RemoveAll(path)) // built whole: no journal
	_, _, _, err := startMemories(ctx, set, bootNow)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"standing":1,`)
	for _, head := range [][2]string{
		{`"standing":1,`, `"standing":1000000000000,`},
		{`"recent":0`, `"recent":1000000000000`},
		{`"standing":1,`, `"standing":-1,`},
		{`"standing":1,`, `"standing":2,`},
		{`"standing":1,`, `"standing":0,`},
	} {
		damaged := bytes.Replace(data, []byte(head[0]), []byte(head[1]), 1)
		require.NotEqual(t, data, damaged)
		require.NoError(t, os.WriteFile(path, damaged, 0o600))
		require.Nil(t, readStartCache(path), head[1])
		standing, _, _, err := startMemories(ctx, set, bootNow)
		require.NoError(t, err)
		require.Len(t, standing, 1, head[1])
	}
}
