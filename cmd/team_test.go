package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// teamWorld is issue 38's set-up: a bare "org memory" remote whose
// refs/memory/main only maintainers may push (a pre-receive hook, as a
// bare server protects it), its maintainer's clone, two project
// repositories (bare remotes) and three clones of them, each clone its own
// user with their own cache directory (their own local copy of the org
// store).
type teamWorld struct {
	*lkWorld
	users map[string]*teamUser
	// sessions counts the sessions started, each with its own id
	sessions int
}

type teamUser struct {
	name, dir, cache string
}

// protectHook is the pre-receive hook docs/team.md gives a bare server,
// as written there, with this world's maintainers: only they push the org
// store's memory and its record of reviews, proposals are open to all. The
// user is $USER, which a local push hands to the hook. The hook's last
// line runs this binary's git mem verify.
func protectHook(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "team.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```sh\n(#!/bin/sh\n# hooks/pre-receive of the org store\n.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/team.md gives a bare server's pre-receive hook")
	hook := string(m[1])
	maintainers := regexp.MustCompile(`(?m)^maintainers=".*?"`)
	require.Regexp(t, maintainers, hook)
	hook = maintainers.ReplaceAllString(hook, `maintainers=" maintainer bob "`)
	require.Contains(t, hook, "| git mem verify\n")
	return strings.Replace(hook, "| git mem verify\n", "| "+binary+" verify\n", 1)
}

func newTeamWorld(t *testing.T) *teamWorld {
	t.Helper()
	w := &teamWorld{lkWorld: newLinkWorld(t), users: map[string]*teamUser{}}
	w.users["maintainer"] = &teamUser{name: "maintainer", dir: w.maintainer, cache: filepath.Join(w.home, "cache-maintainer")}
	for _, p := range []string{"web", "api"} {
		bare := filepath.Join(w.home, p+".git")
		w.gitIn(w.home, "init", "-q", "--bare", "-b", "main", bare)
		gitstoretest.CheckedByGit(t, bare)
	}
	for _, u := range []struct{ name, project string }{{"alice", "web"}, {"bob", "web"}, {"carol", "api"}} {
		dir := filepath.Join(w.home, u.name+"-"+u.project)
		w.gitIn(w.home, "clone", "-q", filepath.Join(w.home, u.project+".git"), dir)
		gitstoretest.CheckedByGit(t, dir)
		w.gitIn(dir, "config", "user.name", strings.ToUpper(u.name[:1])+u.name[1:])
		w.gitIn(dir, "config", "user.email", u.name+"@example.com")
		w.gitIn(dir, "commit", "-q", "--allow-empty", "-m", "start")
		w.users[u.name] = &teamUser{name: u.name, dir: dir, cache: filepath.Join(w.home, "cache-"+u.name)}
	}
	require.NoError(t, os.WriteFile(filepath.Join(w.org, "hooks", "pre-receive"), []byte(protectHook(t)), 0o755))
	return w
}

// run runs git mem as a user, in their clone, with their cache.
func (w *teamWorld) run(user string, args ...string) (string, string, int) {
	u := w.users[user]
	return w.memEnv(u.dir, []string{"XDG_CACHE_HOME=" + u.cache, "USER=" + u.name, "LOGNAME=" + u.name}, args...)
}

func (w *teamWorld) ok(user string, args ...string) string {
	w.t.Helper()
	out, errOut, code := w.run(user, args...)
	require.Equal(w.t, 0, code, "%s: git mem %s: %s%s", user, strings.Join(args, " "), out, errOut)
	return out
}

// startText is what a session started in the user's clone is told: the
// session-start hook of the binary, run as an agent runs it, with the
// user's cache (their copy of the org store).
func (w *teamWorld) startText(user string) string {
	w.t.Helper()
	u := w.users[user]
	w.sessions++
	payload, err := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s%d", w.sessions), "cwd": u.dir, "transcript_path": "/t.jsonl",
		"hook_event_name": "SessionStart", "source": "startup"})
	require.NoError(w.t, err)
	c := exec.Command(binary, "hook", "session-start", "--agent", "claude")
	c.Dir, c.Env, c.Stdin = u.dir, append(w.env(), "XDG_CACHE_HOME="+u.cache), strings.NewReader(string(payload))
	out, err := c.Output()
	require.NoError(w.t, err)
	var answer struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if len(out) == 0 {
		return ""
	}
	require.NoError(w.t, json.Unmarshal(out, &answer), "%s", out)
	return answer.HookSpecificOutput.AdditionalContext
}

// copyDirs are every user's local copies of the org store.
func (w *teamWorld) copyDirs() []string {
	var out []string
	for _, u := range w.users {
		entries, _ := os.ReadDir(filepath.Join(u.cache, "git-mem", "links"))
		for _, e := range entries {
			out = append(out, filepath.Join(u.cache, "git-mem", "links", e.Name(), "repo.git"))
		}
	}
	return out
}

func idOf(t *testing.T, addOut string) string {
	t.Helper()
	id := strings.TrimSpace(addOut)
	require.Regexp(t, "^[0-9a-f]{6,16}$", id)
	return id
}

// TestTeamMemoryEndToEnd is issue 38's end-to-end test: an org memory
// reaches the session start of both projects after a refresh; a proposal
// from one clone is accepted from another and reaches everyone; a rejected
// proposal disappears with its reason recorded; a clone without write
// access gets the host's refusal and loses nothing; a purge in the org
// store travels to every linked copy; git mem verify as the org store's
// pre-receive hook refuses a secret and takes a clean push. Every
// repository passes git fsck --strict at the end.
func TestTeamMemoryEndToEnd(t *testing.T) {
	w := newTeamWorld(t)
	orgURL := w.org

	// the org store starts with one memory, written by its maintainer
	w.ok("maintainer", "add", "--pin", "--source", "user", "--", "Every service logs in JSON to stdout; the platform ships the logs")
	w.ok("maintainer", "sync")
	w.ok("alice", "link", "acme", orgURL, "--write")
	w.ok("bob", "link", "acme", orgURL, "--write")
	w.ok("carol", "link", "acme", orgURL)
	for _, dir := range w.copyDirs() {
		gitstoretest.CheckedByGit(t, dir)
	}

	t.Run("an org memory reaches both projects after a refresh", func(t *testing.T) {
		// bob, a maintainer, writes to the org store from his web clone
		w.ok("bob", "add", "--to", "acme", "--pin", "--source", "user", "--", "Releases are cut on Tuesdays by the platform team")
		w.ok("bob", "sync")
		for _, u := range []string{"alice", "carol"} {
			require.NotContains(t, w.startText(u), "Releases are cut on Tuesdays", "%s's copy is not refreshed yet: reads never fetch", u)
			w.ok(u, "link", "--refresh", "acme")
			require.Contains(t, w.startText(u), "Releases are cut on Tuesdays", u)
		}
	})

	t.Run("a proposal is accepted from another clone and reaches everyone", func(t *testing.T) {
		id := idOf(t, w.ok("carol", "add", "--type", "gotcha", "--source", "user", "--", "The staging database is reset every night at 02:00 UTC"))
		out := w.ok("carol", "propose", "--to", "acme", id)
		require.Contains(t, out, "refs/memory/proposals/carol-example.com/")

		var listed []struct {
			ID, Author, Proposer string
			Memory               *struct{ Text string }
		}
		require.NoError(t, json.Unmarshal([]byte(w.ok("bob", "review", "acme", "--json")), &listed))
		require.Len(t, listed, 1)
		require.Equal(t, "carol-example.com", listed[0].Author)
		require.Equal(t, "Carol <carol@example.com>", listed[0].Proposer)
		require.Equal(t, "The staging database is reset every night at 02:00 UTC", listed[0].Memory.Text)
		require.Contains(t, w.ok("bob", "review", "acme"), "The staging database is reset every night")

		require.Contains(t, w.ok("bob", "review", "acme", "--accept", id), "accepted")
		require.Equal(t, "Carol <carol@example.com> | Bob <bob@example.com>",
			w.gitIn(w.org, "log", "-1", "--format=%an <%ae> | %cn <%ce>", "refs/memory/main"))
		require.Empty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/proposals/"), "the proposal is closed")
		require.Contains(t, w.ok("bob", "review", "acme"), "no proposals to acme")

		for _, u := range []string{"alice", "carol"} {
			w.ok(u, "link", "--refresh", "acme")
			require.Contains(t, w.startText(u), "staging database is reset every night", u)
		}
		w.ok("maintainer", "pull")
		require.Contains(t, w.ok("maintainer", "list"), "staging database is reset every night")
	})

	t.Run("a rejected proposal disappears with its reason recorded", func(t *testing.T) {
		id := idOf(t, w.ok("alice", "add", "--source", "user", "--", "Every service deploys on Fridays"))
		w.ok("alice", "propose", "--to", "acme", id)
		_, errOut, code := w.run("bob", "review", "acme", "--reject", id, "--reason", "leaks ghp_"+"R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")
		require.NotEqual(t, 0, code, "a reason is secret-scanned")
		require.NotContains(t, errOut, "ghp_"+"R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")

		w.ok("bob", "review", "acme", "--reject", id, "--reason", "only the web team deploys on Fridays")
		require.Empty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/proposals/"))
		require.Contains(t, w.ok("carol", "review", "acme"), "no proposals to acme")
		rejected := w.ok("carol", "review", "acme", "--rejected")
		require.Contains(t, rejected, "only the web team deploys on Fridays")
		require.Contains(t, rejected, "alice-example.com")
		require.Contains(t, rejected, "Bob <bob@example.com>")
		w.ok("carol", "link", "--refresh", "acme")
		require.NotContains(t, w.startText("carol"), "deploys on Fridays")
		require.Contains(t, w.ok("alice", "list"), "Every service deploys on Fridays", "the proposer keeps their own memory")
	})

	t.Run("a clone without write access gets the host's refusal and loses nothing", func(t *testing.T) {
		// alice's link allows writing, the host does not let her
		before := w.gitIn(w.org, "rev-parse", "refs/memory/main")
		w.ok("alice", "add", "--to", "acme", "--source", "user", "--", "The web team reviews every CDN change")
		_, errOut, code := w.run("alice", "sync")
		require.NotEqual(t, 0, code)
		require.Contains(t, errOut, "refs/memory/main is protected: propose with git mem propose --to acme", "the host's message")
		require.Equal(t, before, w.gitIn(w.org, "rev-parse", "refs/memory/main"))
		require.Contains(t, w.ok("alice", "link", "--list"), "1 unpushed")
		require.Contains(t, w.startText("alice"), "The web team reviews every CDN change", "the memory stays, in her copy")

		id := idOf(t, w.ok("carol", "add", "--source", "user", "--", "The api team owns the rate limiter"))
		w.ok("carol", "propose", "--to", "acme", id)
		_, errOut, code = w.run("carol", "review", "acme", "--accept", id)
		require.NotEqual(t, 0, code)
		require.Contains(t, errOut, "refs/memory/main is protected: propose with git mem propose --to acme", "the host's message")
		require.Contains(t, errOut, "nothing was written to acme and the proposal stays open")
		require.Equal(t, before, w.gitIn(w.org, "rev-parse", "refs/memory/main"))
		require.NotEmpty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/proposals/"), "the proposal stays open")
		require.Contains(t, w.ok("carol", "list"), "The api team owns the rate limiter", "the proposer's memory is where it was")
		for _, line := range strings.Split(w.startText("carol"), "\n") {
			require.False(t, strings.Contains(line, "rate limiter") && strings.Contains(line, "org:acme"),
				"carol's copy holds nothing the org store lacks: %s", line)
		}
		copies := w.copyDirs()
		require.NotEmpty(t, copies)
		for _, dir := range copies {
			require.NotContains(t, w.gitIn(dir, "log", "--format=%B", "refs/memory/main"), "rate limiter", "%s holds no refused write", dir)
		}

		// a maintainer accepts it, and carol reads it from the org store
		w.ok("bob", "review", "acme", "--accept", id)
		w.ok("carol", "link", "--refresh", "acme")
		require.Contains(t, w.ok("carol", "review", "acme"), "no proposals to acme")
	})

	t.Run("a purge in the org store travels to every linked copy", func(t *testing.T) {
		const leak = "zebra-quokka-17"
		id := idOf(t, w.ok("maintainer", "add", "--source", "user", "--", "The internal build host is "+leak+" behind the office VPN"))
		w.ok("maintainer", "sync")
		for _, u := range []string{"alice", "bob", "carol"} {
			w.ok(u, "link", "--refresh", "acme")
		}
		require.Contains(t, w.startText("alice"), leak, "pinned or newest: the memory is shown")
		w.ok("maintainer", "forget", "--purge", id)
		w.ok("maintainer", "sync")
		for _, u := range []string{"alice", "bob", "carol"} {
			w.ok(u, "link", "--refresh", "acme")
			require.NotContains(t, w.startText(u), leak, u)
		}
		for _, dir := range w.copyDirs() {
			require.Empty(t, filesHoldingGit(t, w.lkWorld, dir, leak), "%s no longer reaches the text", dir)
		}
	})

	t.Run("git mem verify as the org store's pre-receive hook", func(t *testing.T) {
		hook := "#!/bin/sh\nexec " + binary + " verify\n"
		require.NoError(t, os.WriteFile(filepath.Join(w.org, "hooks", "pre-receive"), []byte(hook), 0o755))
		t.Cleanup(func() {
			_ = os.WriteFile(filepath.Join(w.org, "hooks", "pre-receive"), []byte(protectHook(t)), 0o755)
		})
		before := w.gitIn(w.org, "rev-parse", "refs/memory/main")
		w.ok("maintainer", "add", "--allow-secret", "--source", "user", "--", "the deploy token is ghp_"+"R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")
		_, errOut, code := w.run("maintainer", "push")
		require.NotEqual(t, 0, code, "the server refuses a secret")
		require.Contains(t, errOut, "secret")
		require.NotContains(t, errOut, "ghp_"+"R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")
		require.Equal(t, before, w.gitIn(w.org, "rev-parse", "refs/memory/main"))
		// nor may it come as a proposal, pushed by hand
		c := exec.Command("git", "-C", w.maintainer, "push", "-q", "origin", "refs/memory/main:refs/memory/proposals/mallory/0123456789abcdef")
		c.Env = w.env()
		out, err := c.CombinedOutput()
		require.Error(t, err, "a proposal carrying a secret is refused: %s", out)
		require.Empty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/proposals/"))

		clean := filepath.Join(w.home, "clean")
		w.gitIn(w.home, "clone", "-q", w.org, clean)
		gitstoretest.CheckedByGit(t, clean)
		w.gitIn(clean, "fetch", "-q", "origin", "+refs/memory/main:refs/memory/main")
		_, errOut, code = w.memEnv(clean, []string{"XDG_CACHE_HOME=" + filepath.Join(w.home, "cache-clean")}, "add", "--source", "user", "--", "Service owners are listed in OWNERS.md")
		require.Equal(t, 0, code, errOut)
		_, errOut, code = w.memEnv(clean, []string{"XDG_CACHE_HOME=" + filepath.Join(w.home, "cache-clean")}, "push")
		require.Equal(t, 0, code, "a clean push is taken: %s", errOut)

		// proposals and the record of rejections are memory refs the
		// server's check takes
		id := idOf(t, w.ok("carol", "add", "--source", "user", "--", "The api gateway times out after 30 seconds"))
		w.ok("carol", "propose", "--to", "acme", id)
		w.ok("bob", "review", "acme", "--reject", id, "--reason", "it is 60 seconds since the last upgrade")
		require.Contains(t, w.ok("carol", "review", "acme", "--rejected"), "it is 60 seconds since the last upgrade")
		id = idOf(t, w.ok("carol", "add", "--source", "user", "--", "The api gateway times out after 60 seconds"))
		w.ok("carol", "propose", "--to", "acme", id)
		w.ok("bob", "review", "acme", "--accept", id)
		require.Empty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/proposals/"))
	})

	for _, dir := range w.copyDirs() {
		gitstoretest.CheckedByGit(t, dir)
	}
}

// filesHoldingGit lists the objects a repository reaches (every ref) that
// hold s.
func filesHoldingGit(t *testing.T, w *lkWorld, dir, s string) []string {
	t.Helper()
	return (&syWorld{sandbox: w.sandbox}).reachableHolding(dir, s)
}

// TestProposeReviewRefuseBadInput: flags and arguments are checked before
// anything is fetched or pushed, and what others pushed is shown escaped.
func TestProposeReviewRefuseBadInput(t *testing.T) {
	w := newLinkWorld(t)
	w.memOK(w.repo, "link", "acme", w.org)
	id := strings.TrimSpace(w.memOK(w.repo, "add", "--source", "user", "--", "The web team owns the CDN configuration"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"propose", id}, 2, "--to NAME"},
		{[]string{"propose", "--to", "acme"}, 2, "give the memory id"},
		{[]string{"propose", "--to", "a/b", id}, 1, "link name"},
		{[]string{"propose", "--to", "nolink", id}, 1, "no linked store named"},
		{[]string{"propose", "--to", "acme", "ffff"}, 1, "no memory with id"},
		{[]string{"review"}, 2, "give the NAME"},
		{[]string{"review", "../x"}, 1, "link name"},
		{[]string{"review", "acme", "--accept", id, "--reject", id, "--reason", "r"}, 2, "one of --accept, --reject and --rejected"},
		{[]string{"review", "acme", "--reject", id}, 2, "--reason"},
		{[]string{"review", "acme", "--reason", "why"}, 2, "--reason goes with --reject"},
		{[]string{"review", "acme", "--reject", id, "--reason", "two\nlines"}, 1, "one line"},
		{[]string{"review", "acme", "--reject", id, "--reason", "leaks ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"}, 1, "secret"},
		{[]string{"review", "acme", "--accept", id}, 1, "no open proposal of a memory with id \"" + id + "\"; git mem review acme lists the open ones"},
		{[]string{"review", "acme", "--reject", id, "--reason", "why"}, 1, "no open proposal"},
	} {
		out, errOut, code := w.mem(w.repo, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
		require.NotContains(t, out+errOut, "ghp_"+"R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu")
		require.NotContains(t, errOut, "--allow-secret", "review has no such flag to offer")
	}
	require.Empty(t, w.gitIn(w.org, "for-each-ref", "refs/memory/"), "nothing reached the org store")

	// a rejection recorded by hand, with a terminal escape in its reason
	// and its reviewer's name, is shown escaped
	scratch := w.project("scratch")
	w.gitIn(scratch, "-c", "user.name=Evil \x1b[2J", "commit", "-q", "--allow-empty", "-m",
		"mem: reject\n\nMemory-Id: 0123456789abcdef\nMemory-Op: reject\nProposed-By: mallory\nReason: see \x1b]52;c;cHduZWQ=\x07 here")
	w.gitIn(scratch, "push", "-q", w.org, "HEAD:refs/memory/reviews/rejected")
	out := w.memOK(w.repo, "review", "acme", "--rejected")
	require.Contains(t, out, "0123456789abcdef"[:6])
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "\x07")
}
