package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

func openBatchSet(t *testing.T) (*gitstore.Set, *gitstore.Store) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("GIT_AUTHOR_NAME", "Batch Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "batch@example.com")
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	store, err := set.Writable(gitstore.ScopeProject)
	require.NoError(t, err)
	return set, store
}

// TestRememberBatchDecidesAsRemember: the same memories saved one by one
// with Remember and in one batch end in the same decisions.
func TestRememberBatchDecidesAsRemember(t *testing.T) {
	texts := []struct{ text, typ string }{
		{"The API listens on port 8080", ""},
		{"the API listens on PORT 8080", ""},
		{"The API listens on port 8080.", ""},
		{"The API listens on port 8081", ""},
		{"The API listens on port 8080", gitstore.TypeDecision},
		{"We use pnpm, not npm.", gitstore.TypeConvention},
		{"we use pnpm not npm", gitstore.TypeConvention},
		{"we do not use pnpm", gitstore.TypeConvention},
		{"Deploys go through Fly.io", ""},
		{"Deploys go through Fly.io from the main branch after CI passes on GitHub Actions", ""},
	}
	ctx := context.Background()
	w := gitstore.Writer{Agent: "cli"}
	set1, store1 := openBatchSet(t)
	type decision struct {
		reinforced bool
		possible   bool
	}
	var one []decision
	for _, x := range texts {
		o, err := Access{}.Remember(ctx, set1, store1, w, gitstore.NewMemory{Text: x.text, Type: x.typ})
		require.NoError(t, err)
		one = append(one, decision{o.Reinforced, o.PossibleDuplicateOf != nil})
	}
	set2, store2 := openBatchSet(t)
	items := make([]BatchItem, len(texts))
	for i, x := range texts {
		items[i] = BatchItem{New: gitstore.NewMemory{Text: x.text, Type: x.typ}}
	}
	res, err := RememberBatch(ctx, set2, store2, w, items, BatchOptions{Op: gitstore.OpImport, Subject: "test"})
	require.NoError(t, err)
	var batch []decision
	for _, o := range res.Outcomes {
		require.NoError(t, o.Refused)
		batch = append(batch, decision{o.Reinforced, o.PossibleDuplicateOf != nil})
	}
	require.Equal(t, one, batch)
	l1, err := store1.List(gitstore.Filter{All: true})
	require.NoError(t, err)
	l2, err := store2.List(gitstore.Filter{All: true})
	require.NoError(t, err)
	require.Len(t, l2, len(l1))
	log, err := store2.Log(ctx, 0)
	require.NoError(t, err)
	require.Len(t, log, 1, "one commit for the batch")
}

func TestRememberBatchRefusesPerItemAndDryRun(t *testing.T) {
	set, store := openBatchSet(t)
	ctx := context.Background()
	w := gitstore.Writer{Agent: "cli"}
	_, err := Access{}.Remember(ctx, set, store, w, gitstore.NewMemory{Text: "Bookings are stored in UTC", Origin: &gitstore.Origin{File: "CLAUDE.md", Line: 4}})
	require.NoError(t, err)
	tip, err := store.Tip()
	require.NoError(t, err)
	items := []BatchItem{
		{New: gitstore.NewMemory{Text: "Staging admin login: password=hunter2hunter2", Origin: &gitstore.Origin{File: "AGENTS.md", Line: 2}}},
		{New: gitstore.NewMemory{Text: "bookings are stored in UTC.", Origin: &gitstore.Origin{File: "CLAUDE.md", Line: 9}}},
		{New: gitstore.NewMemory{Text: "Bookings are stored in UTC", Origin: &gitstore.Origin{File: "AGENTS.md", Line: 3}}},
		{New: gitstore.NewMemory{Text: "", Origin: &gitstore.Origin{File: "AGENTS.md", Line: 4}}},
		{New: gitstore.NewMemory{Text: "Run make test before pushing", Origin: &gitstore.Origin{File: "AGENTS.md", Line: 5}}},
	}
	for _, dry := range []bool{true, false} {
		res, err := RememberBatch(ctx, set, store, w, items, BatchOptions{Op: gitstore.OpImport, Subject: "test", DryRun: dry})
		require.NoError(t, err)
		o := res.Outcomes
		require.True(t, errors.Is(o[0].Refused, memerr.ErrSecret), "%v", o[0].Refused)
		require.True(t, o[1].Unchanged, "the same claim from the same file is already there")
		require.True(t, o[2].Reinforced, "the same claim from another file reinforces")
		require.True(t, errors.Is(o[3].Refused, memerr.ErrInvalid), "%v", o[3].Refused)
		require.False(t, o[4].Reinforced || o[4].Unchanged)
		require.Equal(t, "Run make test before pushing", o[4].Memory.Text)
		now, err := store.Tip()
		require.NoError(t, err)
		if dry {
			require.Equal(t, tip, now, "a dry run writes nothing")
			require.Empty(t, res.Commit)
		} else {
			require.NotEqual(t, tip, now)
			require.Equal(t, now.String(), res.Commit)
		}
	}
}

// TestDeduperFindsWhatBruteForceFinds: prefix filtering never misses a
// memory a comparison with every memory would find.
func TestDeduperFindsWhatBruteForceFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("api port listens booking utc deploy fly main branch ci test make lint cache redis queue worker retry job auth session token login admin migration schema table index")
	sentence := func() string {
		n := 2 + rng.IntN(6)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	d := newDeduper()
	var held []*gitstore.Memory
	for i := 0; i < 600; i++ {
		text := sentence()
		got, gotSim := d.best(gitstore.TypeFact, text, false)
		var want *gitstore.Memory
		wantSim := 0.0
		for _, m := range held {
			if s := Similarity(text, m.Text); s >= DuplicateSimilarity && s > wantSim {
				want, wantSim = m, s
			}
		}
		if want == nil {
			require.Nil(t, got, "found %q for %q", fmt.Sprint(got), text)
		} else {
			require.NotNil(t, got, "missed %q for %q", want.Text, text)
			require.InDelta(t, wantSim, gotSim, 1e-9)
			require.Equal(t, want.ID, got.m.ID)
		}
		m := &gitstore.Memory{ID: gitstore.NewID(), Type: gitstore.TypeFact, Text: text}
		d.add(m, false)
		held = append(held, m)
	}
}

// TestDedupeWorkGrowsWithTheBatch: items drawn from a few common words
// (every item shares most words with every other) cost the deduper work in
// proportion to their number, not to its square, and a copy of an earlier
// item is still found.
func TestDedupeWorkGrowsWithTheBatch(t *testing.T) {
	words := strings.Fields("deploy build test cache token staging release branch review schema migration queue worker index")
	compared := func(n int) int {
		rng := rand.New(rand.NewPCG(3, 5))
		d := newDeduper()
		for i := 0; i < n; i++ {
			ws := make([]string, 10)
			for k := range ws {
				ws[k] = words[rng.IntN(len(words))]
			}
			text := fmt.Sprintf("%s %d", strings.Join(ws, " "), i)
			d.best(gitstore.TypeFact, text, false)
			d.add(&gitstore.Memory{ID: fmt.Sprint(i), Type: gitstore.TypeFact, Text: text}, false)
		}
		first := d.entries[0].m.Text
		e, sim := d.best(gitstore.TypeFact, first, false)
		require.NotNil(t, e, "a copy of the first item among %d alike ones", n)
		require.Equal(t, 1.0, sim)
		return d.compared
	}
	small, large := compared(2000), compared(4000)
	require.Less(t, float64(large), 2.2*float64(small), "compared %d memories for 2,000 items and %d for 4,000", small, large)
}
