package index

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

func TestSimilarityAndClaim(t *testing.T) {
	cases := []struct {
		name      string
		a, b      string
		similar   bool // Similarity >= DuplicateSimilarity
		sameClaim bool
	}{
		{"identical", "The API listens on port 8080", "The API listens on port 8080", true, true},
		{"case and whitespace", "The API listens on port 8080", "  the api   LISTENS on port 8080 ", true, true},
		{"punctuation", "We use pnpm, not npm.", "we use pnpm not npm", true, true},
		{"other number", "The API listens on port 8080", "The API listens on port 8081", true, false},
		{"negated", "we use npm", "we do not use npm", true, false},
		{"contracted negation", "the worker retries failed jobs", "the worker doesn't retry failed jobs", true, false},
		{"plural", "migrations run before the tests", "migration runs before the test", true, true},
		{"numbers in another order", "memory 3 from writer 5", "memory 5 from writer 3", true, false},
		{"different fact", "The API listens on port 8080", "Postgres stores bookings in UTC", false, false},
		{"more detail is not a near-duplicate", "Deploys go through Fly.io", "Deploys go through Fly.io from the main branch after CI passes on GitHub Actions", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := Similarity(tc.a, tc.b)
			require.Equal(t, tc.similar, sim >= DuplicateSimilarity, "similarity %.2f", sim)
			require.Equal(t, tc.sameClaim, SameClaim(tc.a, tc.b))
			require.InDelta(t, sim, Similarity(tc.b, tc.a), 1e-9, "symmetric")
		})
	}
	require.Zero(t, Similarity("", "x"))
}

func TestRememberDedupes(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("GIT_AUTHOR_NAME", "Dedupe Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "dedupe@example.com")
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	store, err := set.Writable(gitstore.ScopeProject)
	require.NoError(t, err)
	ctx := context.Background()
	claude := gitstore.Writer{Agent: "claude-code", Session: "s1"}
	codex := gitstore.Writer{Agent: "codex", Session: "s2"}

	first, err := Access{}.Remember(ctx, set, store, claude, gitstore.NewMemory{Text: "The API listens on port 8080"})
	require.NoError(t, err)
	require.False(t, first.Reinforced)
	require.Nil(t, first.PossibleDuplicateOf)
	base := first.Memory.EffectiveTrust(first.Memory.Created)

	steps := []struct {
		name       string
		w          gitstore.Writer
		text, typ  string
		reinforced bool
		possible   bool
		trust      float64 // expected trust of the first memory afterwards, when reinforced
	}{
		{"same words, other case, same agent", claude, "the API listens on PORT 8080", "", true, false, base + 0.10*(1-base)},
		{"same fact from another agent", codex, "The API listens on port 8080.", "", true, false, 0},
		{"different number is saved, named as possible duplicate", codex, "The API listens on port 8081", "", false, true, 0},
		{"same text, other type, is its own memory", claude, "The API listens on port 8080", gitstore.TypeDecision, false, false, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			o, err := Access{}.Remember(ctx, set, store, st.w, gitstore.NewMemory{Text: st.text, Type: st.typ})
			require.NoError(t, err)
			require.Equal(t, st.reinforced, o.Reinforced)
			if st.reinforced {
				require.Equal(t, first.Memory.ID, o.Memory.ID)
			}
			if st.possible {
				require.NotNil(t, o.PossibleDuplicateOf)
				require.Equal(t, first.Memory.ID, o.PossibleDuplicateOf.ID)
				require.NotEqual(t, first.Memory.ID, o.Memory.ID)
			} else {
				require.Nil(t, o.PossibleDuplicateOf)
			}
			if st.trust != 0 {
				require.InDelta(t, st.trust, o.Memory.EffectiveTrust(o.Memory.Updated), 0.001)
			}
		})
	}
	rd, err := store.Read()
	require.NoError(t, err)
	m, err := rd.Get(first.Memory.ID)
	require.NoError(t, err)
	require.Len(t, m.Events, 2)
	require.Equal(t, gitstore.EventReinforce, m.Events[1].Op)
	require.Equal(t, "codex", m.Events[1].Agent)
	// 0.9 -> +0.10 (same agent) -> +0.20 (another agent).
	t1 := 0.9 + 0.10*0.1
	require.InDelta(t, t1+0.20*(1-t1), m.EffectiveTrust(m.Updated), 0.001)
	require.Len(t, m.Reinforced, 1, "at most one reinforcement date a day")
	all, err := store.List(gitstore.Filter{})
	require.NoError(t, err)
	require.Len(t, all, 3)
}

// refusingEngine counts the times recall opens it and answers none of
// them, so that recall falls back to the snapshot.
type refusingEngine struct{ opens int }

func (e *refusingEngine) Open(context.Context, string, []*gitstore.Store, Progress) (Corpus, bool, error) {
	e.opens++
	return nil, false, ErrBusy
}

func (e *refusingEngine) Rebuild(context.Context, string, map[string]string, int, Docs, Progress) (int, error) {
	return 0, ErrBusy
}

func (e *refusingEngine) Discard(string) {}

// TestRememberLeavesTheEngineAlone checks that a write's duplicate check
// ranks from the recall snapshot, which every write brings forward, and
// never opens the engine: opening the bleve index after a write syncs it,
// a cost that grew with the store at every MCP memory_add. The check still
// finds the memory the previous write saved.
func TestRememberLeavesTheEngineAlone(t *testing.T) {
	r := newTestRepo(t)
	prev := currentEngine()
	e := &refusingEngine{}
	UseEngine(e)
	t.Cleanup(func() { UseEngine(prev) })
	ctx := context.Background()
	w := gitstore.Writer{Agent: "claude-code"}
	first, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: "The billing worker retries a failed webhook three times"})
	require.NoError(t, err)
	again, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: "the billing worker retries a failed webhook three times."})
	require.NoError(t, err)
	require.True(t, again.Reinforced)
	require.Equal(t, first.Memory.ID, again.Memory.ID)
	alike, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: "The billing worker never retries a failed webhook three times"})
	require.NoError(t, err)
	require.NotNil(t, alike.PossibleDuplicateOf)
	require.Equal(t, first.Memory.ID, alike.PossibleDuplicateOf.ID)
	require.Zero(t, e.opens, "the duplicate check opened the engine")

	// a recall a caller asks for still goes to the engine first
	r.recall("billing webhook")
	require.Equal(t, 1, e.opens)
}

// TestRememberFindsTheDuplicateAmongOtherTypes checks that the duplicate
// check compares the new text with the memories of its type that share the
// most of its words, however many memories of other types say the same:
// ranking the text as a query and keeping the ten best of every type would
// miss it. A superseded memory is never reinforced.
func TestRememberFindsTheDuplicateAmongOtherTypes(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	w := gitstore.Writer{Agent: "claude-code"}
	text := "The billing worker retries a failed webhook three times"
	for range 12 {
		r.add(text, func(n *gitstore.NewMemory) { n.Type = gitstore.TypeDecision })
	}
	old := r.add(text, func(n *gitstore.NewMemory) { n.Type = gitstore.TypeGotcha })
	r.add("Webhook retries moved to the queue", func(n *gitstore.NewMemory) { n.Type, n.Supersedes = gitstore.TypeGotcha, old.ID })
	fact := r.add(text)
	for i := range 30 {
		r.add(fmt.Sprintf("The billing worker %d logs each webhook", i))
	}

	o, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: "the billing worker retries a failed webhook three times."})
	require.NoError(t, err)
	require.True(t, o.Reinforced)
	require.Equal(t, fact.ID, o.Memory.ID)

	o, err = Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Type: gitstore.TypeGotcha, Text: text})
	require.NoError(t, err)
	require.False(t, o.Reinforced, "a superseded memory was reinforced")
	require.Nil(t, o.PossibleDuplicateOf)
}

// TestRememberFindsTheDuplicateOfALongText checks the duplicate check of a
// text of more distinct words than it counts (MaxQueryTerms): counted on
// the rarest of them, the same text is still found and reinforced.
func TestRememberFindsTheDuplicateOfALongText(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	w := gitstore.Writer{Agent: "claude-code"}
	var words []string
	for i := range 3 * MaxQueryTerms {
		words = append(words, fmt.Sprintf("word%c%c", 'a'+i%26, 'a'+i/26))
	}
	long := "The release checklist names " + strings.Join(words, " ")
	for i := range 20 {
		r.add(fmt.Sprintf("The release checklist names %s and %s", words[i], words[i+1]))
	}
	first, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: long})
	require.NoError(t, err)
	require.False(t, first.Reinforced)
	again, err := Access{}.Remember(ctx, r.set, r.main, w, gitstore.NewMemory{Text: long + "."})
	require.NoError(t, err)
	require.True(t, again.Reinforced)
	require.Equal(t, first.Memory.ID, again.Memory.ID)
}

// TestRememberNoticesAMemorySharingHalfItsTerms: the duplicate check
// compares every memory sharing at least half of the text's indexed terms;
// one sharing exactly half can still be alike (stop words count in the
// similarity), and is named as the possible duplicate.
func TestRememberNoticesAMemorySharingHalfItsTerms(t *testing.T) {
	r := newTestRepo(t)
	stored := r.add("It is the cache that is on the desk for us")
	out, err := Access{}.Remember(context.Background(), r.set, r.main, gitstore.Writer{Agent: "claude-code"},
		gitstore.NewMemory{Text: "It is the cache that is on the disk for us"})
	require.NoError(t, err)
	require.False(t, out.Reinforced, "not the same claim")
	require.NotNil(t, out.PossibleDuplicateOf)
	require.Equal(t, stored.ID, out.PossibleDuplicateOf.ID)
}
