package gitstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// Sharing (docs/architecture.md) moves refs/memory/main, and nothing else, through an
// ordinary git remote. The transport is the git command itself, run with
// os/exec, so every remote works as the user's git does: local paths,
// file://, ssh (keys, agent, ~/.ssh/config) and https (credential helpers).
//
// Every git invocation is pinned down so that the user's configuration cannot
// widen what it touches: explicit refspecs under refs/memory/ only, "--" before
// the remote, --no-tags, --refmap= (no opportunistic remote-tracking updates),
// --no-write-fetch-head, --recurse-submodules=no, remote.<name>.mirror=false,
// protocol.ext.allow=never. refs/memory/private is never named in a refspec,
// so it is never pushed.

// RemoteFetchRefspec is the refspec that makes a plain git fetch of remote
// bring its memory too; git mem share adds it to remote.<remote>.fetch.
func RemoteFetchRefspec(slug string) string {
	return "+" + RefMain + ":" + trackingRef(slug)
}

// trackingRef is where the memory of a remote is fetched to before it is
// merged: refs/memory/remotes/<remote>/main.
func trackingRef(slug string) string { return "refs/memory/remotes/" + slug + "/main" }

// Remote is a remote repository that memory is shared through.
type Remote struct {
	// Name is the configured remote name ("origin"), empty when a URL or a
	// path was given directly.
	Name string
	// Display is what messages show: the name, or the URL without credentials.
	Display string
	// Slug names the remote under refs/memory/remotes/: the remote's name, or
	// for a URL a readable form of it plus a short hash.
	Slug string
	// how says how the remote was chosen: "argument", "mem.remote",
	// "branch.<b>.remote" or "default".
	how string

	arg string // what is passed to git after "--"
}

// TrackingRef is the ref this remote's memory is fetched to.
func (rem *Remote) TrackingRef() string { return trackingRef(rem.Slug) }

// TransportOptions tune the git processes that talk to a remote.
type TransportOptions struct {
	// Prompt lets git ask for credentials on the terminal; without it
	// GIT_TERMINAL_PROMPT=0 makes a missing credential an error instead of a
	// hang (hooks and agents have no terminal).
	Prompt bool
}

// lazyRegexp compiles expr when first used: a process that never looks
// at a remote (every hook) does not pay for compiling it at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// helperRe matches git's "<transport>::<address>" remote-helper syntax.
var helperRe = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9+.-]*::`)

// credRe finds the user-information part of URLs in free text (git's own
// messages included), so that tokens and passwords are never printed: up to
// the authority's last @, as a password may hold one.
var credRe = lazyRegexp(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@`)

// RedactURL removes user names, passwords and tokens from URLs in s.
func RedactURL(s string) string { return credRe().ReplaceAllString(s, "$1") }

// checkRemoteArg refuses a remote name or URL that git would read as an option
// (a leading "-"), as a remote helper ("ext::sh -c …" and every other
// "<transport>::" form), or whose host would reach ssh as an option.
func checkRemoteArg(s string) error {
	shown := RedactURL(s)
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%w: the remote is empty; give a remote name such as origin, or a URL", memerr.ErrInvalid)
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("%w: refusing remote %q: git would read it as an option; give a remote name or a URL", memerr.ErrInvalid, shown)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: refusing remote %q: it contains control characters", memerr.ErrInvalid, shown)
	case helperRe().MatchString(s):
		return fmt.Errorf("%w: refusing remote %q: the <transport>::<address> form runs a remote helper program (ext:: runs any command); use an ssh, https or file URL, or a path", memerr.ErrInvalid, shown)
	}
	host := ""
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		if k := strings.LastIndexByte(rest, '@'); k >= 0 {
			if strings.HasPrefix(rest, "-") {
				return fmt.Errorf("%w: refusing remote %q: its user name starts with \"-\", which ssh would read as an option", memerr.ErrInvalid, shown)
			}
			rest = rest[k+1:]
		}
		host = rest
	} else if i := strings.IndexByte(s, ':'); i > 0 && !strings.Contains(s[:i], "/") {
		host = s[:i] // scp-like user@host:path
		if k := strings.LastIndexByte(host, '@'); k >= 0 {
			host = host[k+1:]
		}
	}
	if strings.HasPrefix(host, "-") || strings.HasPrefix(host, "[-") {
		return fmt.Errorf("%w: refusing remote %q: its host starts with \"-\", which ssh would read as an option", memerr.ErrInvalid, shown)
	}
	return nil
}

// gitPath finds the git command; sharing needs it.
func gitPath() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: the git command is not on PATH; install git (sharing memory runs git fetch and git push)", memerr.ErrRemote)
	}
	return p, nil
}

// runGit runs git on this repository with the protective settings of every
// sharing command, and returns its standard output. On failure the error holds
// git's message with credentials removed.
func (r *Repo) runGit(ctx context.Context, t TransportOptions, config []string, args ...string) ([]byte, error) {
	if r.GitDir == "" {
		return nil, fmt.Errorf("%w: an in-memory repository has no remotes", memerr.ErrRemote)
	}
	git, err := gitPath()
	if err != nil {
		return nil, err
	}
	full := []string{"--git-dir=" + r.GitDir, "-c", "protocol.ext.allow=never"}
	for _, c := range config {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, git, full...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=")
	if !t.Prompt {
		cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return stdout.Bytes(), ctx.Err()
		}
		return stdout.Bytes(), &gitError{args: args, stderr: RedactURL(strings.TrimSpace(stderr.String())), err: err}
	}
	return stdout.Bytes(), nil
}

// gitError is a git command that failed; its message is git's, without credentials.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = e.err.Error()
	}
	sub := ""
	if len(e.args) > 0 {
		sub = e.args[0]
	}
	return "git " + sub + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is git's exit status, -1 when it did not run.
func (e *gitError) exitCode() int {
	var x *exec.ExitError
	if errors.As(e.err, &x) {
		return x.ExitCode()
	}
	return -1
}

// gitConfigAll reads every value of a multi-valued git config key.
func (r *Repo) gitConfigAll(ctx context.Context, key string) ([]string, error) {
	out, err := r.runGit(ctx, TransportOptions{}, nil, "config", "--get-all", "--", key)
	var ge *gitError
	if errors.As(err, &ge) && ge.exitCode() == 1 {
		return nil, nil // unset
	}
	if err != nil {
		return nil, err
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			vals = append(vals, l)
		}
	}
	return vals, nil
}

// gitConfigList reads the whole configuration as git sees it (includes, -c
// and environment included), keyed like git config --list: section and key
// lower-cased, subsection as written.
func (r *Repo) gitConfigList(ctx context.Context) (map[string][]string, error) {
	out, err := r.runGit(ctx, TransportOptions{}, nil, "config", "--null", "--list")
	if err != nil {
		return nil, err
	}
	cfg := map[string][]string{}
	for _, entry := range strings.Split(string(out), "\x00") {
		if entry == "" {
			continue
		}
		k, v, _ := strings.Cut(entry, "\n")
		cfg[k] = append(cfg[k], v)
	}
	return cfg, nil
}

func last(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// rewritesURLs reports whether url.<base>.insteadOf or pushInsteadOf is set,
// so that the URLs git really contacts must be asked from git.
func rewritesURLs(cfg map[string][]string) bool {
	for k := range cfg {
		if strings.HasPrefix(k, "url.") && (strings.HasSuffix(k, ".insteadof") || strings.HasSuffix(k, ".pushinsteadof")) {
			return true
		}
	}
	return false
}

// ResolveRemote chooses the remote to share memory through: arg when given,
// else git config mem.remote, else the current branch's upstream remote
// (branch.<b>.remote), else origin. A configured remote name is used with its
// URLs; anything else is taken as a URL or a path. Names and URLs that git
// would read as options or remote helpers are refused (checkRemoteArg), as are
// configured URLs of that form, also after url.<base>.insteadOf rewriting.
func (r *Repo) ResolveRemote(ctx context.Context, arg string) (*Remote, error) {
	cfg, err := r.gitConfigList(ctx)
	if err != nil {
		return nil, err
	}
	how := "argument"
	if arg == "" {
		arg, how = last(cfg["mem.remote"]), "mem.remote"
	}
	if arg == "" {
		if b := r.Head().Branch; b != "" {
			if v := last(cfg["branch."+b+".remote"]); v != "" && v != "." {
				arg, how = v, "branch."+b+".remote"
			}
		}
	}
	if arg == "" {
		arg, how = "origin", "default"
	}
	if err := checkRemoteArg(arg); err != nil {
		return nil, err
	}
	rem := &Remote{arg: arg, how: how}
	var urls []string
	if validRemoteName(arg) {
		urls = append(append(urls, cfg["remote."+arg+".url"]...), cfg["remote."+arg+".pushurl"]...)
	}
	if len(urls) > 0 {
		if rewritesURLs(cfg) {
			for _, extra := range [][]string{{"remote", "get-url", "--all", arg}, {"remote", "get-url", "--push", "--all", arg}} {
				out, err := r.runGit(ctx, TransportOptions{}, nil, extra...)
				if err != nil {
					return nil, fmt.Errorf("%w: %v", memerr.ErrRemote, err)
				}
				for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					if l != "" {
						urls = append(urls, l)
					}
				}
			}
		}
		for _, u := range urls {
			if err := checkRemoteArg(u); err != nil {
				return nil, fmt.Errorf("remote %s: %w; fix its URL with git remote set-url %s URL", arg, err, arg)
			}
		}
		rem.Name, rem.Display, rem.Slug = arg, arg, arg
		return rem, nil
	}
	if how == "default" || !looksLikeURL(arg) {
		return nil, &memerr.NoRemoteError{Remote: RedactURL(arg)}
	}
	if rewritesURLs(cfg) {
		// A URL given directly: check what git will really contact.
		out, err := r.runGit(ctx, TransportOptions{}, nil, "ls-remote", "--get-url", "--", arg)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", memerr.ErrRemote, err)
		}
		if u := strings.TrimSpace(string(out)); u != "" {
			if err := checkRemoteArg(u); err != nil {
				return nil, fmt.Errorf("remote %s is rewritten by url.*.insteadOf: %w", RedactURL(arg), err)
			}
		}
	}
	rem.Display = RedactURL(arg)
	rem.Slug = urlSlug(arg)
	return rem, nil
}

// looksLikeURL tells a URL or a path from a mistyped remote name.
func looksLikeURL(s string) bool {
	if strings.Contains(s, "://") || strings.ContainsAny(s, `/\`) || strings.HasPrefix(s, ".") {
		return true
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		return true // scp-like user@host:path
	}
	st, err := os.Stat(s)
	return err == nil && st.IsDir()
}

// validRemoteName reports whether name can be used under refs/memory/remotes/:
// git's ref-name rules for each slash-separated component.
func validRemoteName(name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return false
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || name == "@" {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
		for _, c := range part {
			if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
				return false
			}
		}
	}
	return true
}

var slugRe = lazyRegexp(`[^A-Za-z0-9._-]+`)

// urlSlug names a remote given as a URL: a readable form of its host and path
// and a short hash of the whole (credentials removed), e.g.
// "github.com-acme-memory.git-1a2b3c4d".
func urlSlug(url string) string {
	clean := RedactURL(url)
	sum := sha256.Sum256([]byte(clean))
	s := clean
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	s = strings.Trim(slugRe().ReplaceAllString(s, "-"), "-.")
	s = strings.ReplaceAll(s, "..", ".")
	if len(s) > 48 {
		s = strings.Trim(s[len(s)-48:], "-.")
	}
	s = strings.TrimSuffix(s, ".lock")
	if s == "" {
		s = "url"
	}
	return s + "-" + hex.EncodeToString(sum[:4])
}

// remoteConfig is the -c settings that keep a remote's configuration from
// widening a fetch or a push (a mirror remote would force-push).
func (rem *Remote) remoteConfig() []string {
	if rem.Name == "" {
		return nil
	}
	return []string{"remote." + rem.Name + ".mirror=false"}
}

// lsRemote asks the remote where its refs/memory/main points, without
// fetching anything; zero when the remote has no memory.
func (r *Repo) lsRemote(ctx context.Context, rem *Remote, t TransportOptions) (Hash, error) {
	out, err := r.runGit(ctx, t, rem.remoteConfig(), "ls-remote", "--", rem.arg, RefMain)
	if err != nil {
		return zeroHash, fmt.Errorf("%w: cannot reach %s (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	for _, line := range strings.Split(string(out), "\n") {
		h, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && name == RefMain {
			if hash, valid := parseHash(h); valid {
				return hash, nil
			}
		}
	}
	return zeroHash, nil
}

// fetch brings the remote's refs/memory/main into
// refs/memory/remotes/<remote>/main and returns it; zero when the remote has
// no memory yet (the tracking ref is then left as it was).
func (r *Repo) fetch(ctx context.Context, rem *Remote, t TransportOptions) (Hash, error) {
	// --no-filter: in a partial clone, git fetch would apply the clone's
	// filter (blob:none) and leave the memory documents on the remote,
	// where git-mem, which never fetches lazily, cannot read them
	args := []string{"fetch", "--quiet", "--no-tags", "--no-prune", "--refmap=", "--no-write-fetch-head",
		"--recurse-submodules=no", "--no-auto-gc", "--no-filter", "--", rem.arg, RemoteFetchRefspec(rem.Slug)}
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		_, err = r.runGit(ctx, t, rem.remoteConfig(), args...)
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "couldn't find remote ref") {
			return zeroHash, nil
		}
		if !errors.As(err, &ge) || !strings.Contains(ge.stderr, "cannot lock ref") {
			break
		}
		// Another fetch in this repository is updating the tracking ref.
		time.Sleep(time.Duration(10+rand.IntN(40*(attempt+1))) * time.Millisecond)
	}
	if err != nil {
		return zeroHash, fmt.Errorf("%w: fetching memory from %s failed (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	// git wrote new objects, maybe a new pack: look again.
	r.reopenObjects()
	return r.refs.read(rem.TrackingRef())
}

// pushStatus is the outcome of one git push of refs/memory/main.
type pushStatus int

const (
	pushDone     pushStatus = iota // the remote now holds our tip
	pushUpToDate                   // it already did
	pushMoved                      // rejected: the remote has commits we lack
	pushStale                      // rejected: --force-with-lease found another value
	pushLocked                     // rejected: the remote's ref was locked by another push
)

// pushOnce runs one git push of refs/memory/main:refs/memory/main. With
// lease, the push is forced but only while the remote still holds *lease
// (git push --force-with-lease); without, it must fast-forward.
func (r *Repo) pushOnce(ctx context.Context, rem *Remote, t TransportOptions, lease *Hash, verify bool) (pushStatus, error) {
	args := []string{"push", "--porcelain", "--no-follow-tags", "--recurse-submodules=no"}
	if !verify {
		args = append(args, "--no-verify")
	}
	if lease != nil {
		expect := ""
		if !lease.IsZero() {
			expect = lease.String()
		}
		args = append(args, "--force-with-lease="+RefMain+":"+expect)
	}
	args = append(args, "--", rem.arg, RefMain+":"+RefMain)
	out, err := r.runGit(ctx, t, rem.remoteConfig(), args...)
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 || !strings.HasSuffix(f[1], ":"+RefMain) {
			continue
		}
		flag, summary := f[0], f[2]
		switch {
		case flag == "=":
			return pushUpToDate, nil
		case flag == "!" && strings.Contains(summary, "stale info"):
			return pushStale, nil
		case flag == "!" && (strings.Contains(summary, "fetch first") || strings.Contains(summary, "non-fast-forward")):
			return pushMoved, nil
		case flag == "!" && (strings.Contains(summary, "failed to update ref") || strings.Contains(summary, "lock")):
			return pushLocked, nil // another push held the remote's ref lock
		case flag == "!":
			return 0, fmt.Errorf("%w: %s refused the memory push: %s%s; see the remote's rules for refs/memory/*", memerr.ErrRemote, rem.Display, RedactURL(summary), hostWords(err))
		case err == nil:
			return pushDone, nil
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%w: pushing memory to %s failed (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	return pushDone, nil
}

// ShareRefspec makes a plain git fetch of the named remote bring its memory
// too, by adding RemoteFetchRefspec to remote.<name>.fetch unless it is there
// already. It reports whether it added it.
func (r *Repo) ShareRefspec(ctx context.Context, rem *Remote) (added bool, err error) {
	if rem.Name == "" {
		return false, fmt.Errorf("%w: %s is a URL, not a configured remote; add it first with git remote add NAME URL", memerr.ErrInvalid, rem.Display)
	}
	want := RemoteFetchRefspec(rem.Slug)
	have, err := r.gitConfigAll(ctx, "remote."+rem.Name+".fetch")
	if err != nil {
		return false, err
	}
	for _, h := range have {
		if strings.TrimSpace(h) == want {
			return false, nil
		}
	}
	if _, err := r.runGit(ctx, TransportOptions{}, nil, "config", "--add", "remote."+rem.Name+".fetch", want); err != nil {
		return false, err
	}
	return true, nil
}

// shared reports whether a plain git fetch of the named remote brings its memory.
func (r *Repo) shared(ctx context.Context, rem *Remote) (bool, error) {
	if rem.Name == "" {
		return false, nil
	}
	have, err := r.gitConfigAll(ctx, "remote."+rem.Name+".fetch")
	if err != nil {
		return false, err
	}
	for _, h := range have {
		if strings.TrimSpace(h) == RemoteFetchRefspec(rem.Slug) {
			return true, nil
		}
	}
	return false, nil
}

// RecordPurged adds a purged memory's full id to git config mem.purged (once),
// so that a later pull never merges it back from a remote or a teammate that
// still has it (see Pull). git mem forget --purge should call it.
func (r *Repo) RecordPurged(ctx context.Context, id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%w: %q is not a full memory id", memerr.ErrInvalid, id)
	}
	have, err := r.gitConfigAll(ctx, "mem.purged")
	if err != nil {
		return err
	}
	for _, h := range have {
		if strings.EqualFold(strings.TrimSpace(h), id) {
			return nil
		}
	}
	_, err = r.runGit(ctx, TransportOptions{}, nil, "config", "--add", "mem.purged", id)
	return err
}

// hostWords is what the remote itself said about a refused push (git's
// "remote: " lines: a host's permission message, a server hook's reason),
// without credentials, to follow git's own summary; "" when it said nothing.
func hostWords(err error) string {
	var ge *gitError
	if !errors.As(err, &ge) {
		return ""
	}
	var said []string
	for _, l := range strings.Split(ge.stderr, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "remote:"); ok && strings.TrimSpace(t) != "" {
			said = append(said, strings.TrimSpace(t))
		}
	}
	if len(said) == 0 {
		return ""
	}
	return " (the remote said: " + strings.Join(said, " ") + ")"
}
