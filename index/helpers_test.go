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
