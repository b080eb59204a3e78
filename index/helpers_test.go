package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/indextest"
)

// testRepo is a real git repository in a temp dir, with a worktree.
type testRepo struct {
	t    *testing.T
	dir  string
	set  *gitstore.Set
	main *gitstore.Store
	now  time.Time
}

var testNow = indextest.Now

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	tr := &testRepo{now: testNow}
	repo := indextest.NewRepo(t, func() time.Time { return tr.now })
	tr.dir, tr.set, tr.main = repo.Dir, repo.Set, repo.Main
	if tt, ok := t.(*testing.T); ok {
		tr.t = tt
	}
	return tr
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = indextest.GitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, string(out))
	return strings.TrimSpace(string(out))
}

// commitFile writes a file and commits it.
func (r *testRepo) commitFile(path, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	require.NoError(r.t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(r.t, os.WriteFile(full, []byte(content), 0o644))
	r.git("add", "--", path)
	r.git("commit", "-q", "-m", "change "+path)
}

func (r *testRepo) add(text string, mod ...func(*gitstore.NewMemory)) *gitstore.Memory {
	r.t.Helper()
	return indextest.Add(r.t, r.main, text, mod...)
}

func (r *testRepo) recall(q string, mod ...func(*Options)) *Result {
	r.t.Helper()
	o := Options{Query: q, Now: r.now.Add(time.Minute)}
	for _, f := range mod {
		f(&o)
	}
	res, err := Recall(context.Background(), r.set, o)
	require.NoError(r.t, err)
	return res
}

func ids(res *Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Memory.ID)
	}
	return out
}

func texts(res *Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Memory.Text)
	}
	return out
}

// seedMemories are a small realistic store.
var seedMemories = indextest.Seed

func (r *testRepo) seed() map[string]*gitstore.Memory {
	out := map[string]*gitstore.Memory{}
	for _, s := range seedMemories {
		s := s
		m := r.add(s.Text, func(n *gitstore.NewMemory) { n.Type = s.Type; n.Paths = s.Paths })
		out[s.Text] = m
	}
	return out
}

// evalDir holds the project's own eval (its labelled datasets).
func evalDir() string { return filepath.Join("..", "fixtures", "eval") }

// Injectable reports whether a prompt has enough usable terms (at least
// MinQueryTerms) for a hook to inject memories for it. "ok", "yes do it" and
// "thanks!" have none; a hook then injects nothing.
func Injectable(prompt string) bool { return len(QueryTerms(prompt)) >= MinQueryTerms }

// score computes the relevance of every document that can reach the
// candidate floor, with the evidence the confidence reads.
//
// Words no memory contains are not scored (they are counted in
// queryStats.unknown); of the known groups the scoredGroups rarest are
// kept, so a pasted log or a long prompt is matched on its distinctive
// words, wherever they stand in it.
//
// A candidate matches one of the query's rarer half of groups (by
// reference weight): a memory that shares only a question's commonest words
// answers its incidentals, not what it is about.
//
// Only some words admit new documents (MaxScore, word by word): those of
// the rarer half of groups that can score most, as many as it takes that
// the other words cannot lift a document matching none of them to the
// candidate floor. They are scored first; in the other words' postings
// only the documents already seen are looked up (amongReader), instead
// of scoring those postings whole. Documents left out that
// way could not have been candidates, so the answer is the same as a full
// evaluation's.
func score(c corpus, terms []string, cfg *Tuning) ([]cand, *queryStats, error) {
	cands, _, qs, err := scoreTop(c, terms, cfg, 0)
	return cands, qs, err
}

// topByRelevance keeps the k most relevant candidates above the floor, plus
// any tied with the last one, sorted by relevance; above counts every
// candidate over the floor. It selects with a k-sized heap, so a query
// matching most of a large store does not sort all of it.
func topByRelevance(cands []cand, floor float64, k int) (top []cand, above int) {
	h := relHeap{k: k}
	for _, c := range cands {
		if c.rel >= floor {
			above++
			h.push(c.rel)
		}
	}
	if above == 0 {
		return nil, 0
	}
	threshold := h.threshold(floor)
	for _, c := range cands {
		if c.rel >= threshold {
			top = append(top, c)
		}
	}
	sortByRelevance(top)
	return top, above
}
