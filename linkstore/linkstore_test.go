package linkstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
)

// world is an org memory remote (bare), a maintainer's clone of it, and
// project repositories, in a temporary HOME and cache, driven by the real
// git CLI.
type world struct {
	t    *testing.T
	root string
	org  string // the bare org memory remote
	main string // the maintainer's clone of it
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, root: root, org: filepath.Join(root, "org.git"), main: filepath.Join(root, "maintainer")}
	for k, v := range map[string]string{
		"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, ".config"), "XDG_DATA_HOME": filepath.Join(root, "data"),
		"XDG_CACHE_HOME":      filepath.Join(root, "cache"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(root, "gitconfig"),
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_WORK_TREE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "gitconfig"), []byte("[user]\n\tname = Nobody\n\temail = nobody@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644))
	w.git(root, "init", "-q", "--bare", w.org)
	gitstoretest.CheckedByGit(t, w.org)
	w.git(root, "clone", "-q", w.org, w.main)
	gitstoretest.CheckedByGit(t, w.main)
	return w
}

func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	require.NoError(w.t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// project makes a project repository.
func (w *world) project(name string) *gitstore.Repo {
	w.t.Helper()
	dir := filepath.Join(w.root, name)
	w.git(w.root, "init", "-q", dir)
	gitstoretest.CheckedByGit(w.t, dir)
	return w.open(dir)
}

func (w *world) open(dir string) *gitstore.Repo {
	w.t.Helper()
	r, err := gitstore.Open(dir)
	require.NoError(w.t, err)
	return r
}

// orgAdd adds a memory to the org store through the maintainer's clone.
func (w *world) orgAdd(text string) *gitstore.Memory {
	w.t.Helper()
	ctx := context.Background()
	r := w.open(w.main)
	m, err := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).Add(ctx, gitstore.Writer{Agent: "cli"}, gitstore.NewMemory{Text: text, Source: "user"})
	require.NoError(w.t, err)
	rem, err := r.ResolveRemote(ctx, "origin")
	require.NoError(w.t, err)
	_, err = r.Sync(ctx, gitstore.Writer{Agent: "cli"}, rem, gitstore.TransportOptions{}, false)
	require.NoError(w.t, err)
	return m
}

// copyOf is the local copy of the org store, its cache checked by git.
func (w *world) copyOf(url string) *linkstore.Copy {
	w.t.Helper()
	c, err := linkstore.CopyOf(url)
	require.NoError(w.t, err)
	return c
}

func texts(t *testing.T, r *gitstore.Repo) []string {
	t.Helper()
	rd, err := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).Read()
	require.NoError(t, err)
	all, err := rd.All()
	require.NoError(t, err)
	var out []string
	for _, m := range all {
		out = append(out, m.Text)
	}
	return out
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"acme", true}, {"Acme-2_x", true}, {"9lives", true},
		{"", false}, {"-rf", false}, {"_x", false}, {"a.b", false}, {"a/b", false}, {"a b", false},
		{"org:acme", false}, {"a\nb", false}, {"é", false}, {strings.Repeat("a", 41), false}, {"a\x00", false},
	} {
		err := linkstore.CheckName(tc.name)
		if tc.ok {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorIs(t, err, memerr.ErrInvalid, "%q", tc.name)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://github.com/acme/memory.git", true},
		{"ssh://git@github.com/acme/memory.git", true},
		{"git@github.com:acme/memory.git", true},
		{"file:///srv/git/memory.git", true},
		{"/srv/git/memory.git", true},
		{"https://x-access-token:ghp_abc@github.com/acme/memory.git", false},
		{"https://ghp_abcdef@github.com/acme/memory.git", false},
		{"ssh://git:hunter2@host/memory.git", false},
		{"user:pw@host:memory.git", false},
		{"ext::sh -c touch% pwned", false},
		{"fd::17", false},
		{"--upload-pack=touch pwned", false},
		{"ssh://-oProxyCommand=touch%20x/repo", false},
		{"-oProxyCommand=x:repo", false},
		{"https://host/a\nb", false},
		{"", false},
	} {
		err := linkstore.CheckURL(tc.url)
		if tc.ok {
			require.NoError(t, err, tc.url)
		} else {
			require.ErrorIs(t, err, memerr.ErrInvalid, "%q", tc.url)
			require.NotContains(t, err.Error(), "ghp_abc", "a refusal never repeats a credential")
			require.NotContains(t, err.Error(), "hunter2")
		}
	}
}

func TestSlug(t *testing.T) {
	a := linkstore.Slug("https://github.com/acme/memory.git")
	require.Equal(t, a, linkstore.Slug("https://github.com/acme/memory.git"))
	require.NotEqual(t, a, linkstore.Slug("https://github.com/acme/memory2.git"))
	require.True(t, strings.HasPrefix(a, "github.com-acme-memory.git-"), a)
	for _, u := range []string{"/../../etc", "ssh://h/..", "..", "a/../../b", "https://h/" + strings.Repeat("x", 300)} {
		s := linkstore.Slug(u)
		require.NotContains(t, s, "/", u)
		require.NotContains(t, s, "..", u)
		require.NotEqual(t, ".", s[:1], u)
		require.LessOrEqual(t, len(s), 64, u)
	}
}

func TestRecordListForget(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	p := w.project("app")
	require.NoError(t, linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: w.org}, false))
	require.NoError(t, linkstore.Record(ctx, p, linkstore.Link{Name: "platform", URL: "https://example.com/platform-memory.git", Write: true}, false))
	p = w.open(p.WorkTree)
	links, bad := linkstore.Links(p)
	require.Empty(t, bad)
	require.Equal(t, []linkstore.Link{{Name: "acme", URL: w.org}, {Name: "platform", URL: "https://example.com/platform-memory.git", Write: true}}, links)
	require.Equal(t, "true", w.git(p.WorkTree, "config", "mem.link.platform.write"))

	err := linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: "https://example.com/other.git"}, false)
	require.ErrorIs(t, err, linkstore.ErrExists)
	require.NoError(t, linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: w.org}, false), "the same link again changes nothing")

	require.NoError(t, linkstore.Forget(ctx, p, "platform"))
	p = w.open(p.WorkTree)
	links, _ = linkstore.Links(p)
	require.Equal(t, []linkstore.Link{{Name: "acme", URL: w.org}}, links)
	require.ErrorIs(t, linkstore.Forget(ctx, p, "platform"), memerr.ErrNotFound)

	// a hand-edited configuration with a hostile URL is read as no link
	w.git(p.WorkTree, "config", "mem.link.evil.url", "ext::sh -c id")
	w.git(p.WorkTree, "config", "mem.link.bad name.url", w.org)
	p = w.open(p.WorkTree)
	links, bad = linkstore.Links(p)
	require.Equal(t, []linkstore.Link{{Name: "acme", URL: w.org}}, links)
	require.Len(t, bad, 2)

	// hostile input never reaches the configuration
	for _, l := range []linkstore.Link{{Name: "x", URL: "ext::sh -c id"}, {Name: "-x", URL: w.org}, {Name: "a.b", URL: w.org}, {Name: "t", URL: "https://tok@github.com/a/b"}} {
		require.ErrorIs(t, linkstore.Record(ctx, p, l, false), memerr.ErrInvalid, "%+v", l)
	}
	require.NotContains(t, w.git(p.WorkTree, "config", "--list", "--local"), "tok@")
}

func TestRefreshInterval(t *testing.T) {
	w := newWorld(t)
	p := w.project("app")
	require.Equal(t, linkstore.DefaultRefresh, linkstore.RefreshInterval(p))
	w.git(p.WorkTree, "config", "mem.link.refresh", "15")
	require.Equal(t, 15*time.Minute, linkstore.RefreshInterval(w.open(p.WorkTree)))
	w.git(p.WorkTree, "config", "mem.link.refresh", "0")
	require.Equal(t, time.Duration(0), linkstore.RefreshInterval(w.open(p.WorkTree)))
}

func TestNormalizeURL(t *testing.T) {
	w := newWorld(t)
	got, err := linkstore.NormalizeURL("org.git", w.root)
	require.NoError(t, err)
	require.Equal(t, w.org, got)
	got, err = linkstore.NormalizeURL("git@github.com:acme/m.git", w.root)
	require.NoError(t, err)
	require.Equal(t, "git@github.com:acme/m.git", got)
	_, err = linkstore.NormalizeURL("nowhere.git", w.root)
	require.ErrorIs(t, err, memerr.ErrInvalid)
}

// Two projects linking one URL share one local copy, fetched once; a
// memory added to the org store reaches it on the next refresh.
func TestSharedCopyFetchedOnce(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	first := w.orgAdd("releases are cut from the release branch on Tuesdays")
	a, b := w.project("app"), w.project("api")
	for _, p := range []*gitstore.Repo{a, b} {
		require.NoError(t, linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: w.org}, false))
	}
	ca, cb := w.copyOf(w.org), w.copyOf(w.org)
	require.Equal(t, ca.Dir, cb.Dir)
	require.Nil(t, ca.Repo, "no copy before the first refresh")
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	res, err := ca.Refresh(ctx, linkstore.RefreshOptions{Interval: time.Hour, Now: clock})
	require.NoError(t, err)
	require.True(t, res.Fetched)
	gitstoretest.CheckedByGit(t, ca.RepoDir())
	res, err = cb.Refresh(ctx, linkstore.RefreshOptions{Interval: time.Hour, Now: clock})
	require.NoError(t, err)
	require.False(t, res.Fetched, "the second project finds the copy fresh")
	require.Equal(t, "fresh", res.Skipped)
	st := cb.ReadState()
	require.Equal(t, now, st.Fetched)
	require.Empty(t, st.Error)

	c := w.copyOf(w.org)
	require.Equal(t, []string{first.Text}, texts(t, c.Repo))
	tip, err := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject).Tip()
	require.NoError(t, err)
	near, ok := c.IDs(tip)
	require.True(t, ok, "the refresh listed the copy's ids")
	nb, err := near(first.ID)
	require.NoError(t, err)
	require.Empty(t, nb, "the only id has no neighbours")
	nb, err = near("0000000000000000")
	require.NoError(t, err)
	require.Equal(t, []string{first.ID}, nb)
	data, err := os.ReadFile(filepath.Join(c.Dir, "url"))
	require.NoError(t, err)
	require.Equal(t, w.org+"\n", string(data))
	entries, err := os.ReadDir(filepath.Dir(c.Dir))
	require.NoError(t, err)
	require.Len(t, entries, 1, "one copy per URL")

	second := w.orgAdd("the on-call rotation is in the ops handbook")
	now = now.Add(61 * time.Minute)
	res, err = c.Refresh(ctx, linkstore.RefreshOptions{Interval: time.Hour, Now: clock})
	require.NoError(t, err)
	require.True(t, res.Fetched)
	require.ElementsMatch(t, []string{first.Text, second.Text}, texts(t, w.copyOf(w.org).Repo))
}

// Two refreshes of one copy at once fetch once: the second waits for the
// first and finds the copy fetched.
func TestConcurrentRefreshesFetchOnce(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.orgAdd("the staging database is reset every night")
	type out struct {
		res *linkstore.RefreshResult
		err error
	}
	results := make(chan out, 4)
	for i := 0; i < 4; i++ {
		go func() {
			c, err := linkstore.CopyOf(w.org)
			if err != nil {
				results <- out{err: err}
				return
			}
			res, err := c.Refresh(ctx, linkstore.RefreshOptions{Interval: time.Hour, Wait: true})
			results <- out{res, err}
		}()
	}
	fetched := 0
	for i := 0; i < 4; i++ {
		o := <-results
		require.NoError(t, o.err)
		if o.res.Fetched {
			fetched++
		}
	}
	require.Equal(t, 1, fetched)
	gitstoretest.CheckedByGit(t, w.copyOf(w.org).RepoDir())
}

// A refresh of an unreachable org store keeps the last copy and records
// the failure; a refresh without Wait leaves a busy copy alone.
func TestRefreshOffline(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	m := w.orgAdd("deploys need two approvals")
	c := w.copyOf(w.org)
	_, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, c.RepoDir())
	fetched := c.ReadState().Fetched

	require.NoError(t, os.Rename(w.org, w.org+".away"))
	defer os.Rename(w.org+".away", w.org)
	_, err = c.Refresh(ctx, linkstore.RefreshOptions{})
	require.ErrorIs(t, err, memerr.ErrRemote)
	st := c.ReadState()
	require.Equal(t, fetched, st.Fetched)
	require.NotEmpty(t, st.Error)
	require.True(t, st.Tried.After(fetched) || st.Tried.Equal(fetched))
	require.Equal(t, []string{m.Text}, texts(t, w.copyOf(w.org).Repo), "offline, the last copy is read")

	lock := filepath.Join(c.Dir, "refresh.lock")
	f, release, err := lockfile.Create(lock)
	require.NoError(t, err)
	f.Close()
	res, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Equal(t, "busy", res.Skipped)
	release()
	require.NoError(t, os.Remove(lock))
}

// A purge in the org store travels to every linked copy.
func TestPurgeTravelsToCopies(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	leak := w.orgAdd("the staging password is in the vault under ops")
	keep := w.orgAdd("the ops vault is at vault.example.com")
	c := w.copyOf(w.org)
	_, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, c.RepoDir())
	require.ElementsMatch(t, []string{leak.Text, keep.Text}, texts(t, c.Repo))

	r := w.open(w.main)
	_, err = r.Purge(ctx, leak.ID)
	require.NoError(t, err)
	rem, err := r.ResolveRemote(ctx, "origin")
	require.NoError(t, err)
	_, err = r.Push(ctx, gitstore.Writer{Agent: "cli"}, rem, gitstore.PushOptions{Force: true})
	require.NoError(t, err)

	p := w.project("app")
	require.NoError(t, linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: w.org}, false))
	linked, bad := linkstore.Open(w.open(p.WorkTree))
	require.Empty(t, bad)
	require.Len(t, linkstore.Stores(linked), 1)
	require.Equal(t, gitstore.Scope("org:acme"), linkstore.Stores(linked)[0].Scope)
	seen := filepath.Join(w.root, "seen")
	require.False(t, linkstore.ScrubDue(linked, seen), "nothing purged yet")

	c = w.copyOf(w.org)
	res, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{leak.ID}, res.Pull.TeammatePurged)
	require.Equal(t, []string{leak.ID}, c.ReadState().Purged)
	require.Empty(t, c.Repo.ScrubPending(), "the copy's marker is lifted once the purge is counted")
	require.True(t, linkstore.ScrubDue(linked, seen), "the project's caches may hold the purged text")
	require.True(t, linkstore.ScrubDue(linkstore.Unopened(w.open(p.WorkTree)), seen), "read from the copies' state alone")
	require.NoError(t, linkstore.MarkScrubbed(linked, seen))
	require.False(t, linkstore.ScrubDue(linked, seen))

	// a refresh killed after its pull purged, before it counted the purge,
	// leaves the copy's marker: the next refresh counts it
	marker := c.Repo.Mem().ScrubMarker()
	require.NoError(t, os.WriteFile(marker, []byte(leak.ID+"\n"), 0o644))
	_, err = c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.True(t, linkstore.ScrubDue(linked, seen), "the stopped refresh's purge is counted")
	require.Empty(t, c.Repo.ScrubPending())
	require.NoError(t, linkstore.MarkScrubbed(linked, seen))
	c = w.copyOf(w.org)
	require.Equal(t, []string{keep.Text}, texts(t, c.Repo))
	out, err := exec.Command("git", "--git-dir="+c.RepoDir(), "log", "--all", "-p").CombinedOutput()
	require.NoError(t, err)
	require.NotContains(t, string(out), "staging password", "no ref of the copy reaches the purged text")
}

// A write to a copy without push rights fails with the host's message;
// the memory stays in the copy, listed as unpushed, and a later push with
// rights sends it.
func TestPushWithoutRights(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.orgAdd("the build cache lives on the CI runners")
	// the host refuses this user's pushes while the deny file is there
	hook := filepath.Join(w.org, "hooks", "pre-receive")
	deny := filepath.Join(w.org, "deny")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nif [ -e deny ]; then echo 'ERROR: you do not have write access to acme/memory' >&2; exit 1; fi\n"), 0o755))
	require.NoError(t, os.WriteFile(deny, nil, 0o644))

	c := w.copyOf(w.org)
	_, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, c.RepoDir())
	mine, err := gitstore.NewStore(c.Repo, gitstore.RefMain, linkstore.Link{Name: "acme"}.Scope()).Add(ctx, gitstore.Writer{Agent: "cli"}, gitstore.NewMemory{Text: "the API gateway retries twice", Source: "user"})
	require.NoError(t, err)
	tip, err := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject).Tip()
	require.NoError(t, err)
	_, ok := c.IDs(tip)
	require.False(t, ok, "the list is of the tip before the write")

	_, err = c.Push(ctx, gitstore.Writer{Agent: "cli"}, gitstore.TransportOptions{})
	require.ErrorIs(t, err, memerr.ErrRemote)
	require.Contains(t, err.Error(), "refused the memory push")
	require.Contains(t, err.Error(), "you do not have write access to acme/memory", "the host's own words")
	un, err := c.Unpushed(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{mine.ID}, un)
	require.Contains(t, texts(t, c.Repo), mine.Text, "nothing is lost")

	// a refresh keeps the unpushed memory beside what it fetches
	require.NoError(t, os.Remove(deny))
	w.orgAdd("code freeze starts on the 20th")
	require.NoError(t, os.WriteFile(deny, nil, 0o644))
	_, err = c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Contains(t, texts(t, w.copyOf(w.org).Repo), mine.Text)

	require.NoError(t, os.Remove(deny))
	_, err = c.Push(ctx, gitstore.Writer{Agent: "cli"}, gitstore.TransportOptions{})
	require.NoError(t, err)
	un, err = c.Unpushed(ctx)
	require.NoError(t, err)
	require.Empty(t, un)
	require.Contains(t, texts(t, w.open(w.main)), "the build cache lives on the CI runners")
}

// The copy's id list answers for each id with its neighbours in order, as
// the sorted ids of its trees would.
func TestCopyIDsNeighbours(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	var ids []string
	for i := 0; i < 7; i++ {
		ids = append(ids, w.orgAdd(fmt.Sprintf("org memory number %d about deploys and %d releases", i, i*i)).ID)
	}
	sort.Strings(ids)
	c := w.copyOf(w.org)
	_, err := c.Refresh(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	gitstoretest.CheckedByGit(t, c.RepoDir())
	c = w.copyOf(w.org)
	tip, err := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject).Tip()
	require.NoError(t, err)
	near, ok := c.IDs(tip)
	require.True(t, ok)
	for i, id := range ids {
		var want []string
		if i > 0 {
			want = append(want, ids[i-1])
		}
		if i+1 < len(ids) {
			want = append(want, ids[i+1])
		}
		got, err := near(id)
		require.NoError(t, err)
		require.Equal(t, want, got, id)
	}
	got, err := near("ffffffffffffffff")
	require.NoError(t, err)
	require.Equal(t, []string{ids[len(ids)-1]}, got)
	_, ok = c.IDs(gitstore.Hash{})
	require.False(t, ok, "a list of another tip is not used")
}
