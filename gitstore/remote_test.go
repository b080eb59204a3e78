package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/health"
	"github.com/git-mem/git-mem/memerr"
)

// rtWorld is a bare remote and clones of it in a temporary HOME, driven by
// the real git CLI.
type rtWorld struct {
	tb     testing.TB
	root   string
	remote string
}

// newRemoteWorld makes the bare remote, with one code commit on main so that
// clones have a branch and an upstream.
func newRemoteWorld(tb testing.TB) *rtWorld {
	tb.Helper()
	root := tb.TempDir()
	w := &rtWorld{tb: tb, root: root, remote: filepath.Join(root, "remote.git")}
	for k, v := range map[string]string{
		"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, ".config"), "XDG_DATA_HOME": filepath.Join(root, "data"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(root, "gitconfig"),
	} {
		rtSetenv(tb, k, v)
	}
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_WORK_TREE"} {
		rtSetenv(tb, k, "")
		os.Unsetenv(k)
	}
	require.NoError(tb, os.WriteFile(filepath.Join(root, "gitconfig"), []byte("[user]\n\tname = Nobody\n\temail = nobody@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644))
	w.git(root, "init", "-q", "--bare", w.remote)
	gitstoretest.CheckedByGit(tb, w.remote)
	seed := filepath.Join(root, "seed")
	w.git(root, "init", "-q", seed)
	gitstoretest.CheckedByGit(tb, seed)
	require.NoError(tb, os.WriteFile(filepath.Join(seed, "README"), []byte("code\n"), 0o644))
	w.git(seed, "add", "README")
	w.git(seed, "commit", "-q", "-m", "code")
	w.git(seed, "push", "-q", w.remote, "main")
	return w
}

func rtSetenv(tb testing.TB, k, v string) {
	if t, ok := tb.(*testing.T); ok {
		t.Setenv(k, v)
		return
	}
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	tb.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}

func (w *rtWorld) git(dir string, args ...string) string {
	w.tb.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := c.CombinedOutput()
	require.NoError(w.tb, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// clone clones the remote as a teammate named name.
func (w *rtWorld) clone(name string) (string, *Repo) {
	w.tb.Helper()
	dir := filepath.Join(w.root, name)
	w.git(w.root, "clone", "-q", w.remote, dir)
	gitstoretest.CheckedByGit(w.tb, dir)
	w.git(dir, "config", "user.name", name)
	w.git(dir, "config", "user.email", strings.ToLower(name)+"@example.com")
	return dir, w.open(dir)
}

func (w *rtWorld) open(dir string) *Repo {
	w.tb.Helper()
	r, err := Open(dir)
	require.NoError(w.tb, err)
	return r
}

func (w *rtWorld) origin(r *Repo) *Remote {
	w.tb.Helper()
	rem, err := r.ResolveRemote(context.Background(), "")
	require.NoError(w.tb, err)
	require.Equal(w.tb, "origin", rem.Name)
	return rem
}

func (w *rtWorld) addN(r *Repo, agent string, n int, prefix string) {
	w.tb.Helper()
	s := NewStore(r, RefMain, ScopeProject)
	for i := 0; i < n; i++ {
		_, err := s.Add(context.Background(), Writer{Agent: agent}, NewMemory{Text: fmt.Sprintf("%s memory %d", prefix, i)})
		require.NoError(w.tb, err)
	}
}

func (w *rtWorld) sync(r *Repo) *SyncResult {
	w.tb.Helper()
	res, err := r.Sync(context.Background(), Writer{Agent: "cli"}, w.origin(r), TransportOptions{}, false)
	require.NoError(w.tb, err)
	return res
}

// texts lists the memory texts on refs/memory/main, read back with git only.
func (w *rtWorld) texts(dir string) map[string]bool {
	w.tb.Helper()
	out := map[string]bool{}
	for _, blob := range strings.Fields(w.git(dir, "ls-tree", "-r", "--format=%(objectname)", RefMain, "memories/")) {
		m, err := DecodeMemory([]byte(w.git(dir, "cat-file", "blob", blob) + "\n"))
		require.NoError(w.tb, err)
		out[m.Text] = true
	}
	return out
}

func (w *rtWorld) fsck(dirs ...string) {
	w.tb.Helper()
	for _, d := range dirs {
		w.git(d, "fsck", "--strict", "--no-progress")
	}
}

func TestSyncConcurrentWritersTwoClones(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	w.addN(a, "claude-code", 1, "base")
	w.sync(a)
	w.sync(b)

	// Two writers per clone (each with its own Repo, as separate processes
	// would be) and one syncer per clone, all at once.
	const writers, each = 2, 15
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for _, dir := range []string{dirA, dirB} {
		for i := 0; i < writers; i++ {
			wg.Add(1)
			go func(dir string, i int) {
				defer wg.Done()
				r, err := Open(dir)
				if err != nil {
					errs <- err
					return
				}
				s := NewStore(r, RefMain, ScopeProject)
				for j := 0; j < each; j++ {
					if _, err := s.Add(context.Background(), Writer{Agent: "agent"}, NewMemory{Text: fmt.Sprintf("%s writer %d memory %d", filepath.Base(dir), i, j)}); err != nil {
						errs <- err
						return
					}
				}
			}(dir, i)
		}
		wg.Add(1)
		go func(dir string) {
			defer wg.Done()
			r, err := Open(dir)
			if err != nil {
				errs <- err
				return
			}
			rem, err := r.ResolveRemote(context.Background(), "")
			if err != nil {
				errs <- err
				return
			}
			for k := 0; k < 3; k++ {
				if _, err := r.Sync(context.Background(), Writer{Agent: "cli"}, rem, TransportOptions{}, false); err != nil {
					errs <- err
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(dir)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	w.sync(a)
	w.sync(b)
	w.sync(a)
	want := 1 + 2*writers*each
	ta, tb := w.texts(dirA), w.texts(dirB)
	require.Len(t, ta, want, "nothing lost")
	require.Equal(t, ta, tb)
	treeA := w.git(dirA, "rev-parse", RefMain+"^{tree}")
	require.Equal(t, treeA, w.git(dirB, "rev-parse", RefMain+"^{tree}"), "both clones end at the same tree")
	require.Equal(t, treeA, w.git(w.remote, "rev-parse", RefMain+"^{tree}"))
	w.fsck(dirA, dirB, w.remote)
	graph := w.git(dirA, "log", "--graph", "--oneline", RefMain)
	require.Contains(t, graph, "mem: merge origin")

	// A second sync is a no-op on both sides.
	tipA, tipB := w.git(dirA, "rev-parse", RefMain), w.git(dirB, "rev-parse", RefMain)
	for _, r := range []*Repo{a, b} {
		res := w.sync(r)
		require.Nil(t, res.Push)
		require.Equal(t, MergeUpToDate, res.Pull.Merge.Kind)
	}
	require.Equal(t, tipA, w.git(dirA, "rev-parse", RefMain))
	require.Equal(t, tipB, w.git(dirB, "rev-parse", RefMain))
}

func TestPushRacesPush(t *testing.T) {
	w := newRemoteWorld(t)
	var dirs []string
	var repos []*Repo
	for _, n := range []string{"Ann", "Bob", "Cy"} {
		d, r := w.clone(n)
		dirs, repos = append(dirs, d), append(repos, r)
	}
	w.addN(repos[0], "a", 1, "base")
	w.sync(repos[0])
	for i, r := range repos {
		w.sync(r)
		w.addN(r, "agent", 5, fmt.Sprintf("clone %d", i))
	}
	var wg sync.WaitGroup
	results := make([]*PushResult, len(repos))
	errs := make([]error, len(repos))
	for i, r := range repos {
		wg.Add(1)
		go func(i int, r *Repo) {
			defer wg.Done()
			rem, err := r.ResolveRemote(context.Background(), "")
			if err == nil {
				results[i], err = r.Push(context.Background(), Writer{Agent: "cli"}, rem, PushOptions{})
			}
			errs[i] = err
		}(i, r)
	}
	wg.Wait()
	retried := 0
	for i := range repos {
		require.NoError(t, errs[i])
		retried += len(results[i].Pulls)
	}
	require.Positive(t, retried, "at least one push found the remote moved and merged")
	for _, r := range repos {
		w.sync(r)
	}
	remoteTree := w.git(w.remote, "rev-parse", RefMain+"^{tree}")
	for _, d := range dirs {
		require.Len(t, w.texts(d), 16)
		require.Equal(t, remoteTree, w.git(d, "rev-parse", RefMain+"^{tree}"))
	}
	w.fsck(append(dirs, w.remote)...)
}

func TestCheckRemoteArgRefusals(t *testing.T) {
	for _, bad := range []string{
		"-oProxyCommand=touch pwned", "--upload-pack=touch pwned", "ext::sh -c touch% pwned", "EXT::sh",
		"fd::17", "foo+bar::x", "ssh://-oProxyCommand=x/repo", "ssh://user@-oProxyCommand=x/repo", "-host:repo",
		"git@-oProxyCommand=x:repo", "origin\nx", "",
	} {
		require.ErrorIs(t, checkRemoteArg(bad), memerr.ErrInvalid, "%q", bad)
	}
	for _, ok := range []string{"origin", "team/memory", "../remote.git", "/srv/git/x.git", "file:///srv/x.git",
		"ssh://git@example.com/x.git", "git@example.com:x.git", "https://example.com/x.git", "C:/repos/x"} {
		require.NoError(t, checkRemoteArg(ok), "%q", ok)
	}
	require.Equal(t, "https://example.com/x.git", RedactURL("https://user:s3cret@example.com/x.git"))
	require.Equal(t, "fatal: unable to access 'https://h/x/'", RedactURL("fatal: unable to access 'https://tok@h/x/'"))
	require.Equal(t, "https://example.com/x.git", RedactURL("https://user:p@ss@word@example.com/x.git"), "a password holding @ is removed whole")
	require.Equal(t, "push https://h/a and https://g/b", RedactURL("push https://a:b@h/a and https://c@g/b"))
}

func TestRemoteRefusedEndToEnd(t *testing.T) {
	w := newRemoteWorld(t)
	dir, r := w.clone("Ann")
	w.addN(r, "a", 1, "x")
	ctx := context.Background()
	marker := filepath.Join(w.root, "pwned")
	for _, arg := range []string{"-oProxyCommand=touch " + marker, "ext::sh -c touch% " + marker} {
		_, err := r.ResolveRemote(ctx, arg)
		require.ErrorIs(t, err, memerr.ErrInvalid)
		require.Contains(t, err.Error(), "refusing remote")
	}
	// A configured remote whose URL is a helper, and a URL rewritten into one.
	w.git(dir, "remote", "add", "evil", "ext::sh -c touch% "+marker)
	_, err := r.ResolveRemote(ctx, "evil")
	require.ErrorIs(t, err, memerr.ErrInvalid)
	w.git(dir, "config", "url.ext::sh -c touch% "+marker+" #.insteadOf", "sneaky:")
	_, err = r.ResolveRemote(ctx, "sneaky:x")
	require.ErrorIs(t, err, memerr.ErrInvalid)
	w.git(dir, "config", "mem.remote", "-oProxyCommand=touch "+marker)
	_, err = r.ResolveRemote(ctx, "")
	require.ErrorIs(t, err, memerr.ErrInvalid)
	_, statErr := os.Stat(marker)
	require.True(t, errors.Is(statErr, os.ErrNotExist), "no command ran")

	// Credentials never appear in messages.
	w.git(dir, "config", "--unset", "mem.remote")
	rem, err := r.ResolveRemote(ctx, "https://user:s3cret-token@127.0.0.1:9/x.git")
	require.NoError(t, err)
	require.NotContains(t, rem.Display+rem.Slug, "s3cret")
	_, err = r.Pull(ctx, Writer{}, rem, PullOptions{})
	require.Error(t, err)
	require.ErrorIs(t, err, memerr.ErrRemote)
	require.NotContains(t, err.Error(), "s3cret")
}

func TestPushTouchesOnlyRefsMemoryMain(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	// Hostile-for-us user configuration: a mirror remote, pruning, tags, follow-tags.
	for _, kv := range [][2]string{{"remote.origin.mirror", "true"}, {"fetch.prune", "true"}, {"remote.origin.tagOpt", "--tags"},
		{"push.followTags", "true"}, {"fetch.recurseSubmodules", "yes"}, {"push.default", "matching"}} {
		w.git(dirA, "config", kv[0], kv[1])
	}
	w.git(dirA, "tag", "-a", "-m", "local tag", "local-tag")
	w.git(dirA, "branch", "local-branch")
	w.git(w.remote, "tag", "remote-tag", "main")
	ctx := context.Background()
	_, err := NewStore(a, RefPrivate, ScopePrivate).Add(ctx, Writer{}, NewMemory{Text: "my private note"})
	require.NoError(t, err)
	w.addN(b, "b", 2, "bob")
	w.sync(b)
	w.addN(a, "a", 2, "ann")
	res := w.sync(a) // diverged: merge, then push with mirror=true configured
	require.Equal(t, mergeCommitted, res.Pull.Merge.Kind)
	require.NotNil(t, res.Push)

	refs := w.git(w.remote, "for-each-ref", "--format=%(refname)")
	require.ElementsMatch(t, []string{"refs/heads/main", "refs/memory/main", "refs/tags/remote-tag"}, strings.Fields(refs), "only refs/memory/main was pushed; nothing deleted")
	require.Len(t, w.texts(w.remote), 4, "not forced: Bob's memories are still there")
	localRefs := w.git(dirA, "for-each-ref", "--format=%(refname)")
	require.NotContains(t, localRefs, "remote-tag", "no tags fetched")
	require.Contains(t, localRefs, "refs/remotes/origin/main", "remote-tracking branches untouched")
	require.Contains(t, localRefs, RefPrivate)
	_, err = os.Stat(filepath.Join(a.GitDir, "FETCH_HEAD"))
	require.True(t, errors.Is(err, os.ErrNotExist), "FETCH_HEAD untouched")
	w.fsck(dirA, dirB, w.remote)
}

func TestPushForceOnlyWhenAsked(t *testing.T) {
	w := newRemoteWorld(t)
	_, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	w.addN(a, "a", 2, "ann")
	w.sync(a)
	// Bob's memory has a history unrelated to the remote's (as after a rewrite).
	w.addN(b, "b", 1, "bob")
	ctx := context.Background()
	rem := w.origin(b)
	res, err := b.Push(ctx, Writer{}, rem, PushOptions{})
	require.NoError(t, err)
	require.Len(t, res.Pulls, 1, "rejected, then merged")
	require.False(t, res.Forced)
	require.Len(t, w.texts(w.remote), 3)

	// Now Bob rewrites his memory (a fresh history) and forces it.
	require.NoError(t, b.refs.update(RefMain, zeroHash, mustRead(b, RefMain)))
	w.addN(b, "b", 1, "rewritten")
	res, err = b.Push(ctx, Writer{}, rem, PushOptions{Force: true})
	require.NoError(t, err)
	require.True(t, res.Forced)
	require.Equal(t, map[string]bool{"rewritten memory 0": true}, w.texts(w.remote))
	require.Equal(t, w.git(dirB, "rev-parse", RefMain), w.git(dirB, "rev-parse", rem.TrackingRef()))
}

func TestShareRefspecAndNoFetchPull(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	_, b := w.clone("Bob")
	ctx := context.Background()
	rem := w.origin(a)
	added, err := a.ShareRefspec(ctx, rem)
	require.NoError(t, err)
	require.True(t, added)
	added, err = a.ShareRefspec(ctx, rem)
	require.NoError(t, err)
	require.False(t, added, "idempotent")
	fetchLines := w.git(dirA, "config", "--get-all", "remote.origin.fetch")
	require.Equal(t, 1, strings.Count(fetchLines, RemoteFetchRefspec("origin")))

	w.addN(b, "b", 3, "bob")
	w.sync(b)
	st, err := a.compareRemote(ctx, rem, TransportOptions{})
	require.NoError(t, err)
	require.False(t, st.Fetched)
	f, err := a.CompareRemote(ctx, rem, TransportOptions{})
	require.NoError(t, err)
	require.Equal(t, health.Warn, f[0].Status)
	require.Contains(t, f[0].Message, "never fetched")
	require.Equal(t, health.FixPull, f[0].Action)
	require.Equal(t, "origin", f[0].Target)

	w.git(dirA, "fetch", "-q", "origin") // a plain git fetch
	res, err := a.Pull(ctx, Writer{}, rem, PullOptions{NoFetch: true})
	require.NoError(t, err)
	require.Equal(t, MergeFastForward, res.Merge.Kind)
	require.Len(t, w.texts(dirA), 3)
	st, err = a.compareRemote(ctx, rem, TransportOptions{})
	require.NoError(t, err)
	require.True(t, st.Merged)
	require.True(t, st.Shared)
}

func TestResolveRemoteOrder(t *testing.T) {
	w := newRemoteWorld(t)
	dir, r := w.clone("Ann")
	ctx := context.Background()
	rem, err := r.ResolveRemote(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "origin", rem.Name)
	require.Equal(t, "branch.main.remote", rem.how)

	w.git(dir, "remote", "add", "team", w.remote)
	w.git(dir, "config", "branch.main.remote", "team")
	rem, err = r.ResolveRemote(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "team", rem.Name)

	w.git(dir, "config", "mem.remote", w.remote)
	rem, err = r.ResolveRemote(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "mem.remote", rem.how)
	require.Empty(t, rem.Name)
	require.True(t, strings.HasPrefix(rem.TrackingRef(), "refs/memory/remotes/"), rem.TrackingRef())
	require.NotContains(t, rem.Slug, "/")
	w.git(r.GitDir, "check-ref-format", rem.TrackingRef())

	_, err = r.ResolveRemote(ctx, "nosuchremote")
	require.ErrorIs(t, err, memerr.ErrRemote)
	var noRemote *memerr.NoRemoteError // the CLI adds how to configure one (cmd/errors.go)
	require.ErrorAs(t, err, &noRemote)
	require.Equal(t, "nosuchremote", noRemote.Remote)
	_, err = r.ResolveRemote(ctx, "origin")
	require.NoError(t, err)
}

// BenchmarkSyncThousandNew measures a sync that brings 1,000 new memories
// (1,000 commits) from the remote into a clone with its own new memory: fetch,
// three-way merge and push of the merge.
func BenchmarkSyncThousandNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newRemoteWorld(b)
		_, ra := w.clone("Ann")
		_, rb := w.clone("Bob")
		w.addN(rb, "b", 1, "bob base")
		w.sync(rb)
		w.sync(ra)
		w.addN(ra, "a", 1000, "ann")
		w.sync(ra)
		w.addN(rb, "b", 1, "bob local")
		b.StartTimer()
		res := w.sync(rb)
		b.StopTimer()
		if res.Pull.Merge.Kind != mergeCommitted || len(res.Pull.Merge.New) != 1000 || res.Push == nil {
			b.Fatalf("unexpected sync: %+v", res.Pull.Merge)
		}
	}
}

func TestPurgedMemoryDoesNotComeBackThroughSync(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	ctx := context.Background()
	s := NewStore(a, RefMain, ScopeProject)
	x, err := s.Add(ctx, Writer{}, NewMemory{Text: "saved by mistake: internal hostname list"})
	require.NoError(t, err)
	w.addN(a, "a", 1, "keep")
	w.sync(a)
	w.sync(b)
	_, err = a.Purge(ctx, x.ID)
	require.NoError(t, err)
	w.git(dirA, "config", "--add", "mem.purged", x.ID)
	res := w.sync(a)
	require.True(t, res.Pull.Rewritten, "the remote's history still held it: merged without it")
	require.True(t, res.Push.Forced, "the push replaces the remote's history")
	require.NotContains(t, w.texts(dirA), x.Text)
	require.NotContains(t, w.texts(w.remote), x.Text)
	w.sync(b)
	require.NotContains(t, w.texts(dirB), x.Text, "forgotten on the teammate's clone too")
	require.Len(t, w.texts(dirB), 1)
}

func TestRecordPurgedIsIdempotent(t *testing.T) {
	w := newRemoteWorld(t)
	dir, r := w.clone("Ann")
	ctx := context.Background()
	id := NewID()
	require.NoError(t, r.RecordPurged(ctx, id))
	require.NoError(t, r.RecordPurged(ctx, id))
	require.Equal(t, id, w.git(dir, "config", "--get-all", "mem.purged"))
	require.ErrorIs(t, r.RecordPurged(ctx, "nope"), memerr.ErrInvalid)
}

// TestPullHonoursTombstones: after a purge, a pull of the remote's old
// history leaves no reachable object holding the text (the merge took the
// old history as a parent), the push replaces the remote's history, and
// the teammate's pull purges the memory from every ref of their clone.
func TestPullHonoursTombstones(t *testing.T) {
	w := newRemoteWorld(t)
	dirA, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	ctx := context.Background()
	x, err := NewStore(a, RefMain, ScopeProject).Add(ctx, Writer{}, NewMemory{Text: "saved by mistake: host list zebra-quokka"})
	require.NoError(t, err)
	w.addN(a, "a", 2, "keep")
	w.sync(a)
	w.sync(b)
	w.addN(b, "b", 1, "teammate")
	w.sync(b)

	rep, err := a.Purge(ctx, x.ID)
	require.NoError(t, err)
	pull, err := a.Pull(ctx, Writer{Agent: "cli"}, w.origin(a), PullOptions{})
	require.NoError(t, err)
	require.True(t, pull.Rewritten)
	leaks, err := a.ReachableLeaks(ctx, rep.Texts)
	require.NoError(t, err)
	require.Empty(t, leaks, "a pull never makes the purged text reachable again")
	require.NotContains(t, w.git(dirA, "log", "--all", "--format=%B"), "zebra-quokka")
	require.Len(t, w.texts(dirA), 3)

	res := w.sync(a)
	require.NotNil(t, res.Push)
	require.True(t, res.Push.Forced)
	require.NotContains(t, w.texts(w.remote), x.Text)
	require.NotContains(t, w.git(w.remote, "log", "--all", "--format=%B"), "zebra-quokka")

	require.Empty(t, a.ScrubPending(), "a pull that purges nothing leaves no marker")
	pull, err = b.Pull(ctx, Writer{Agent: "cli"}, w.origin(b), PullOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{x.ID}, pull.TeammatePurged)
	require.Equal(t, []string{x.ID}, b.ScrubPending(), "the caller's caches still hold the text")
	leaks, err = b.ReachableLeaks(ctx, rep.Texts)
	require.NoError(t, err)
	require.Empty(t, leaks, "the teammate's clone no longer reaches the text")
	stones, err := b.sortedTombstones(pull.Merge.Commit)
	require.NoError(t, err)
	require.Equal(t, []string{x.ID}, stones)
	w.sync(b)
	w.sync(a)
	require.Equal(t, w.git(dirA, "rev-parse", RefMain+"^{tree}"), w.git(dirB, "rev-parse", RefMain+"^{tree}"))
	w.fsck(dirA, dirB, w.remote)
}

func TestPushBackoff(t *testing.T) {
	for _, tt := range []struct {
		attempt   int
		slot, max time.Duration
	}{
		{0, time.Second, time.Second},
		{1, time.Second, 2 * time.Second},
		{3, time.Second, 8 * time.Second},
		{30, time.Second, 8 * time.Second},
		{0, 0, 20 * time.Millisecond},
	} {
		for i := 0; i < 100; i++ {
			d := pushBackoff(tt.attempt, tt.slot)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.Less(t, d, tt.max, "attempt %d", tt.attempt)
		}
	}
}
