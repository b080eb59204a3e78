package linkstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// CacheRoot is where local copies live: <os.UserCacheDir()>/git-mem/links.
func CacheRoot() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cannot locate the cache directory for linked stores: %w; set XDG_CACHE_HOME", err)
	}
	return filepath.Join(base, "git-mem", "links"), nil
}

// Slug names a URL's local copy: a readable form of its host and path and
// a short hash of the whole, so that two URLs never share a copy and a
// person can tell which directory is which.
func Slug(rawURL string) string {
	clean := gitstore.RedactURL(rawURL)
	sum := sha256.Sum256([]byte(clean))
	s := clean
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	var b strings.Builder
	dash := false
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
		if !ok {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(c)
		dash = false
	}
	s = strings.Trim(b.String(), "-.")
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	if len(s) > 48 {
		s = strings.Trim(s[len(s)-48:], "-.")
	}
	if s == "" {
		s = "url"
	}
	return s + "-" + hex.EncodeToString(sum[:6])
}

// Copy is the local copy of one URL.
type Copy struct {
	// URL is the org store's URL.
	URL string
	// Dir is the copy's directory (CacheRoot/<Slug(URL)>).
	Dir string
	// Repo is the copy's bare repository; nil until it exists.
	Repo *gitstore.Repo
}

// RepoDir is the copy's bare repository.
func (c *Copy) RepoDir() string { return filepath.Join(c.Dir, "repo.git") }

func (c *Copy) statePath() string { return filepath.Join(c.Dir, "state") }
func (c *Copy) lockPath() string  { return filepath.Join(c.Dir, "refresh.lock") }
func (c *Copy) idsPath() string   { return filepath.Join(c.Dir, "ids") }
func (c *Copy) urlPath() string   { return filepath.Join(c.Dir, "url") }

// CopyOf returns the local copy of url, opening its repository when it
// exists. Nothing is created: a read never writes a copy.
func CopyOf(rawURL string) (*Copy, error) {
	root, err := CacheRoot()
	if err != nil {
		return nil, err
	}
	c := &Copy{URL: rawURL, Dir: filepath.Join(root, Slug(rawURL))}
	r, _, err := gitstore.OpenBare(c.RepoDir(), false)
	switch {
	case err == nil:
		c.Repo = r
	case errors.Is(err, memerr.ErrEmptyStore):
	default:
		return nil, err
	}
	return c, nil
}

// create makes the copy's directory and repository; the caller holds the
// refresh lock, so two creators never race.
func (c *Copy) create() error {
	if c.Repo != nil {
		return nil
	}
	r, _, err := gitstore.OpenBare(c.RepoDir(), true)
	if err != nil {
		return err
	}
	c.Repo = r
	// the copy holds memory, never code: keep git's own maintenance away
	// from refs it does not know, and say whose copy it is
	if _, err := runGitCmd(context.Background(), r.GitEnv(), "--git-dir="+c.RepoDir(), "config", "gc.auto", "0"); err != nil {
		return err
	}
	return lockfile.WriteAtomic(c.urlPath(), []byte(c.URL+"\n"), 0o600)
}

// State is what the copy records about its refreshes.
type State struct {
	// Fetched is when a fetch last succeeded; zero when none has.
	Fetched time.Time
	// Tried is when a fetch was last tried.
	Tried time.Time
	// Error is the last try's error ("" when it succeeded), on one line.
	Error string
	// Purges counts the refreshes that purged memories from the copy (the
	// org store's purge tombstones); Purged are the last maxPurged ids they
	// purged. A repository reading the copy compares Purges with the count
	// it last scrubbed its caches for (ScrubDue).
	Purges int
	Purged []string
}

// maxPurged bounds State.Purged.
const maxPurged = 100

// ReadState reads the copy's state; zero when it has none. The state is
// lines of "key value", read without encoding/json: a hook reads it.
func (c *Copy) ReadState() State {
	var s State
	data, err := os.ReadFile(c.statePath())
	if err != nil {
		return s
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "fetched":
			s.Fetched, _ = time.Parse(time.RFC3339Nano, v)
		case "tried":
			s.Tried, _ = time.Parse(time.RFC3339Nano, v)
		case "error":
			s.Error = v
		case "purges":
			s.Purges, _ = strconv.Atoi(v)
		case "purged":
			s.Purged = strings.Fields(v)
		}
	}
	return s
}

func (c *Copy) writeState(s State) error {
	var b strings.Builder
	if !s.Fetched.IsZero() {
		b.WriteString("fetched " + s.Fetched.UTC().Format(time.RFC3339Nano) + "\n")
	}
	if !s.Tried.IsZero() {
		b.WriteString("tried " + s.Tried.UTC().Format(time.RFC3339Nano) + "\n")
	}
	if s.Error != "" {
		b.WriteString("error " + strings.Join(strings.Fields(s.Error), " ") + "\n")
	}
	if s.Purges > 0 {
		b.WriteString("purges " + strconv.Itoa(s.Purges) + "\n")
		b.WriteString("purged " + strings.Join(s.Purged, " ") + "\n")
	}
	return lockfile.WriteAtomic(c.statePath(), []byte(b.String()), 0o600)
}

// Due reports whether a background refresh should fetch: never tried, or
// last tried more than interval before now.
func (s State) Due(now time.Time, interval time.Duration) bool {
	return s.Tried.IsZero() || now.Sub(s.Tried) >= interval || now.Before(s.Tried)
}

// RefreshOptions tune a refresh.
type RefreshOptions struct {
	gitstore.TransportOptions
	// Interval: a copy tried less than Interval ago is not fetched again
	// (0: always fetch).
	Interval time.Duration
	// Wait: when another process is refreshing the copy, wait for it (up to
	// the context's end) instead of leaving the refresh to it.
	Wait bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Writer records a merge of local writes with what was fetched.
	Writer gitstore.Writer
}

// RefreshResult says what a refresh did.
type RefreshResult struct {
	// Fetched: this refresh contacted the org store.
	Fetched bool
	// Skipped says why it did not: "fresh" (tried within the interval),
	// "busy" (another process is refreshing it).
	Skipped string
	// Pull is what the fetch and merge did; nil when not fetched.
	Pull *gitstore.PullResult
}

// lockStale: a refresh lock older than this is left by a process that
// could not remove it; a fetch never takes so long.
const lockStale = 10 * time.Minute

// Refresh fetches the org store's refs/memory/main into the copy and merges
// it into the copy's refs/memory/main (gitstore's pull: purge tombstones
// honoured, invalid documents left out), creating the copy when missing.
// One refresh of a copy runs at a time, whichever repository started it.
func (c *Copy) Refresh(ctx context.Context, o RefreshOptions) (*RefreshResult, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the local copy of %s: %w", gitstore.RedactURL(c.URL), err)
	}
	started := now()
	release, err := c.lock(ctx, o.Wait)
	if err != nil {
		return nil, err
	}
	if release == nil {
		return &RefreshResult{Skipped: "busy"}, nil
	}
	defer release()
	st := c.ReadState()
	if o.Interval > 0 && !st.Due(now(), o.Interval) {
		return &RefreshResult{Skipped: "fresh"}, nil
	}
	if o.Wait && !st.Tried.IsZero() && !st.Tried.Before(started) {
		// another process fetched while this one waited for it
		return &RefreshResult{Skipped: "fresh"}, nil
	}
	if err := c.create(); err != nil {
		return nil, err
	}
	res := &RefreshResult{Fetched: true}
	// a refresh stopped after its pull purged memories and before it
	// recorded them here left them in the copy's scrub marker
	leftover := c.Repo.ScrubPending()
	rem, err := c.Repo.ResolveRemote(ctx, c.URL)
	if err == nil {
		res.Pull, err = c.Repo.Pull(ctx, o.Writer, rem, gitstore.PullOptions{TransportOptions: o.TransportOptions})
	}
	st.Tried = now().UTC()
	if err != nil {
		st.Error = gitstore.RedactURL(err.Error())
	} else {
		st.Fetched, st.Error = st.Tried, ""
		err = c.writeIDs()
	}
	purged := leftover
	if res.Pull != nil {
		for _, id := range res.Pull.TeammatePurged {
			if !slices.Contains(purged, id) {
				purged = append(purged, id)
			}
		}
	}
	if len(purged) > 0 {
		st.Purges++
		st.Purged = append(st.Purged, purged...)
		if len(st.Purged) > maxPurged {
			st.Purged = st.Purged[len(st.Purged)-maxPurged:]
		}
	}
	werr := c.writeState(st)
	if werr == nil && len(purged) > 0 {
		// the linked projects scrub by the count just written
		werr = os.Remove(c.Repo.Mem().ScrubMarker())
		if errors.Is(werr, os.ErrNotExist) {
			werr = nil
		}
	}
	if werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// lock takes the copy's refresh lock. It returns a nil release when
// another process holds it and wait is off.
func (c *Copy) lock(ctx context.Context, wait bool) (func(), error) {
	for {
		f, release, err := lockfile.Create(c.lockPath())
		if err == nil {
			f.Close()
			return func() { os.Remove(c.lockPath()); release() }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, serr := os.Stat(c.lockPath()); lockfile.Abandoned(c.lockPath()) || serr == nil && time.Since(st.ModTime()) > lockStale {
			os.Remove(c.lockPath())
			continue
		}
		if !wait {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// runGitCmd runs git with args in env and returns its output; the error
// holds git's message without credentials.
func runGitCmd(ctx context.Context, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(env, "LC_ALL=C", "LANGUAGE=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %v: %s", args[1], err, gitstore.RedactURL(strings.TrimSpace(stderr.String())))
	}
	return out, nil
}

// AnyDue reports whether a background refresh of a repository's links
// would fetch one: a link whose copy was last tried longer ago than
// mem.link.refresh. It reads files only.
func AnyDue(r *gitstore.Repo, now time.Time) bool {
	links, _ := Links(r)
	interval := RefreshInterval(r)
	for _, l := range links {
		c, err := CopyOf(l.URL)
		if err == nil && c.ReadState().Due(now, interval) {
			return true
		}
	}
	return false
}

// writeIDs records the ids of the copy's memories at its tip, sorted, for
// readers' display ids (IDs): a hook that shows memories of the copy then
// reads one file instead of the copy's trees.
func (c *Copy) writeIDs() error {
	st := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject)
	tip, err := st.Tip()
	if err != nil {
		return err
	}
	rd, err := st.ReadAt(tip)
	if err != nil {
		return err
	}
	hs, err := rd.BlobHashes()
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(hs))
	for id := range hs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.Grow((len(ids) + 1) * 17)
	b.WriteString(tip.String() + "\n")
	for _, id := range ids {
		b.WriteString(id + "\n")
	}
	return lockfile.WriteAtomic(c.idsPath(), []byte(b.String()), 0o600)
}

// idsHeader is the length of the id list's first line (the tip and a
// newline), idsRecord of each line after it (an id and a newline).
const (
	idsHeader = 41
	idsRecord = 17
)

// IDs answers for the ids of the copy's memories at tip from the list its
// last refresh wrote (gitstore.Store.IDs): near returns the ids before and
// after an id, found by a binary search of the file's bytes, read once when
// first asked (no list of strings is built). ok is false when the list is of another tip (a write
// to the copy since) or missing.
func (c *Copy) IDs(tip gitstore.Hash) (near func(id string) ([]string, error), ok bool) {
	f, err := os.Open(c.idsPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	head := make([]byte, idsHeader)
	if err != nil || st.Size() < idsHeader || (st.Size()-idsHeader)%idsRecord != 0 {
		return nil, false
	}
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != tip.String()+"\n" {
		return nil, false
	}
	n := int((st.Size() - idsHeader) / idsRecord)
	path := c.idsPath()
	// read when first asked, once: a search of the bytes, no list built
	list := sync.OnceValues(func() ([]byte, error) {
		data, err := os.ReadFile(path)
		if err == nil && len(data) != idsHeader+n*idsRecord {
			err = fmt.Errorf("the id list %s changed while it was read", path)
		}
		return data, err
	})
	return func(id string) ([]string, error) {
		data, err := list()
		if err != nil {
			return nil, err
		}
		at := func(i int) string {
			o := idsHeader + i*idsRecord
			return string(data[o : o+idsRecord-1])
		}
		i := sort.Search(n, func(i int) bool { return at(i) >= id })
		var nb []string
		if i > 0 {
			nb = append(nb, at(i-1))
		}
		if i < n && at(i) == id {
			i++
		}
		if i < n {
			nb = append(nb, at(i))
		}
		return nb, nil
	}, true
}
