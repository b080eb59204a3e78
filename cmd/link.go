package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
)

type linkOptions struct {
	name, url string
	write     bool
	agents    bool
	list      bool
	refresh   bool
	due       bool
	quiet     bool
	json      bool
}

func newLinkCmd(env *Env) *cobra.Command {
	o := &linkOptions{}
	c := &cobra.Command{
		Use:   "link NAME URL [--write] | --list | --refresh [NAME]",
		Short: "Read memory a team shares across its repositories (an org store)",
		Long: `Link a store of memory shared by several repositories: an ordinary git
repository whose refs/memory/main holds, say, an organization's conventions,
owners and release process. Recall, boot, the hooks and the MCP server then
read its memories after the project's own, labelled org:NAME.

  git mem link acme git@github.com:acme/memory.git
  git mem link --list
  git mem unlink acme

The link is recorded in this repository's git config (mem.link.NAME.url,
mem.link.NAME.write); the memory is fetched into one local copy per URL under
your cache directory, shared by every repository that links it, once when the
link is made and then in the background after a session ends and after
git mem sync, at most every mem.link.refresh minutes (default 60). Reads never
fetch: offline, the last copy is read, and git mem doctor says how old it is.

A link is read-only unless made with --write: then git mem add --to NAME
writes to the local copy and git mem sync pushes it (the host's permissions
decide who may). URLs with credentials in them are refused: let git's
credential helper or your ssh keys supply them.`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case o.list || o.refresh:
				if o.list && o.refresh {
					return usagef("give --list or --refresh, not both")
				}
				if o.list && len(args) > 0 || len(args) > 1 {
					return usagef("--list takes no arguments, --refresh at most a NAME")
				}
			case len(args) != 2:
				return usagef("give the link's NAME and the URL of the org store (git mem link acme git@github.com:acme/memory.git)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.name = args[0]
			}
			if len(args) > 1 {
				o.url = args[1]
			}
			if o.agents && !o.write {
				return usagef("--agents lets agents write to a writable link: give it with --write")
			}
			if o.name != "" {
				if err := linkstore.CheckName(o.name); err != nil {
					return err
				}
			}
			switch {
			case o.list:
				return runLinkList(cmd.Context(), env, o)
			case o.refresh:
				return runLinkRefresh(cmd.Context(), env, o)
			}
			return runLink(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.write, "write", false, "allow writing memories to the linked store (git mem add --to NAME)")
	c.Flags().BoolVar(&o.agents, "agents", false, "with --write: let agents write to it too (MCP memory_add with store org:NAME)")
	c.Flags().BoolVar(&o.list, "list", false, "list this repository's links and how fresh their copies are")
	c.Flags().BoolVar(&o.refresh, "refresh", false, "fetch the linked stores now")
	c.Flags().BoolVar(&o.due, "due", false, "with --refresh: only those not fetched within mem.link.refresh")
	c.Flags().BoolVar(&o.quiet, "quiet", false, "with --refresh: print nothing")
	c.Flags().BoolVar(&o.json, "json", false, "with --list: print JSON")
	_ = c.Flags().MarkHidden("due")
	_ = c.Flags().MarkHidden("quiet")
	return c
}

func newUnlinkCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "unlink NAME",
		Short: "Stop reading a linked store",
		Long: `Remove the link NAME from this repository's git config. Its memories are no
longer read here. The local copy stays in the cache directory: other
repositories may link the same URL.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("give the NAME of the link to remove (git mem link --list shows them)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := linkstore.CheckName(args[0]); err != nil {
				return err
			}
			return runUnlink(cmd.Context(), env, args[0])
		},
	}
}

// linkRepo opens the repository of the command's directory: links are its
// configuration.
func linkRepo(env *Env) (*gitstore.Set, error) {
	set, err := env.openSetAsIs()
	if err != nil {
		return nil, err
	}
	if !set.InRepo() {
		return nil, fmt.Errorf("%w: a link is recorded in a repository's configuration; run it inside one (or pass -C PATH)", memerr.ErrNoRepo)
	}
	return set, nil
}

func runLink(ctx context.Context, env *Env, o *linkOptions) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	url, err := linkstore.NormalizeURL(o.url, env.Dir)
	if err != nil {
		return err
	}
	l := linkstore.Link{Name: o.name, URL: url, Write: o.write, Agents: o.agents}
	old, findErr := linkstore.Find(set.Repo, o.name)
	existed := findErr == nil
	if existed && old.URL != url {
		return fmt.Errorf("%w: %s already links %s; git mem unlink %s first", linkstore.ErrExists, o.name, gitstore.RedactURL(old.URL), o.name)
	}
	if err := linkstore.Record(ctx, set.Repo, l, false); err != nil {
		return err
	}
	c, err := linkstore.CopyOf(url)
	if err != nil {
		return err
	}
	res, err := c.Refresh(ctx, linkstore.RefreshOptions{TransportOptions: env.transport(), Interval: linkstore.RefreshInterval(set.Repo),
		Wait: true, Now: env.Now, Writer: env.writer(set, "")})
	if err != nil {
		if !existed {
			// a link whose store cannot be fetched is most likely a mistyped URL
			_ = linkstore.Forget(ctx, set.Repo, o.name)
		}
		return fmt.Errorf("linking %s: %w", o.name, err)
	}
	if !existed {
		// this repository's caches never held what the copy purged before
		_ = linkstore.MarkScrubbed([]linkstore.Linked{{Link: l, Copy: c}}, set.Repo.Mem().LinkScrubs())
	}
	warmLinked(ctx, env)
	mode := "read-only"
	switch {
	case o.agents:
		mode = "writable, by agents too"
	case o.write:
		mode = "writable"
	}
	fmt.Fprintf(env.Out, "linked %s (%s): %s\n", o.name, mode, gitstore.RedactURL(url))
	n := copyCount(c)
	switch {
	case res.Fetched:
		fmt.Fprintf(env.Out, "fetched %s into the local copy; recall reads them as org:%s\n", plural(n, "memory", "memories"), o.name)
	default:
		fmt.Fprintf(env.Out, "the local copy (%s) was fetched %s; recall reads them as org:%s\n", plural(n, "memory", "memories"), ago(env.Now(), c.ReadState().Fetched), o.name)
	}
	return nil
}

// copyCount is the number of memories a local copy holds (0 when unreadable).
func copyCount(c *linkstore.Copy) int {
	if c.Repo == nil {
		return 0
	}
	rd, err := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject).Read()
	if err != nil {
		return 0
	}
	hs, err := rd.BlobHashes()
	if err != nil {
		return 0
	}
	return len(hs)
}

// ago says how long before now t was, in words.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func runUnlink(ctx context.Context, env *Env, name string) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	if err := linkstore.Forget(ctx, set.Repo, name); err != nil {
		return err
	}
	warmLinked(ctx, env)
	fmt.Fprintf(env.Out, "unlinked %s: its memories are no longer read here (the local copy stays for other repositories)\n", name)
	return nil
}

// warmLinked brings the repository's caches (the recall snapshot, the
// start cache) forward over its links as they now are, so that the next
// session's hooks find them current rather than reading a whole linked
// store within their deadline. A cache left behind is brought forward by
// its next reader.
func warmLinked(ctx context.Context, env *Env) {
	set, err := env.openStores()
	if err != nil {
		return
	}
	if index.Refresh(ctx, set) == nil {
		handoff.JournalWrites(ctx, set)
	}
}

// linkJSON is the --json shape of a link.
type linkJSON struct {
	Name     string   `json:"name"`
	URL      string   `json:"url"`
	Write    bool     `json:"write"`
	Agents   bool     `json:"agents"`
	Scope    string   `json:"scope"`
	Copy     string   `json:"copy"`
	Memories int      `json:"memories"`
	Fetched  string   `json:"fetched,omitempty"`
	Tried    string   `json:"tried,omitempty"`
	Error    string   `json:"error,omitempty"`
	Unpushed []string `json:"unpushed"`
}

func runLinkList(ctx context.Context, env *Env, o *linkOptions) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	links, bad := linkstore.Links(set.Repo)
	for _, b := range bad {
		fmt.Fprintf(env.Err, "git mem: warning: %s\n", terminalSafe(b.Error(), false))
	}
	out := []linkJSON{}
	for _, l := range links {
		c, err := linkstore.CopyOf(l.URL)
		if err != nil {
			return err
		}
		st := c.ReadState()
		j := linkJSON{Name: l.Name, URL: gitstore.RedactURL(l.URL), Write: l.Write, Agents: l.Agents, Scope: string(l.Scope()), Copy: c.Dir,
			Memories: copyCount(c), Error: st.Error, Unpushed: []string{}}
		if !st.Fetched.IsZero() {
			j.Fetched = st.Fetched.UTC().Format(time.RFC3339)
		}
		if !st.Tried.IsZero() {
			j.Tried = st.Tried.UTC().Format(time.RFC3339)
		}
		if l.Write && c.Repo != nil {
			if un, err := c.Unpushed(ctx); err == nil {
				j.Unpushed = append(j.Unpushed, un...)
			}
		}
		out = append(out, j)
		if o.json {
			continue
		}
		mode := "read-only"
		if l.Write {
			mode = "writable"
		}
		line := fmt.Sprintf("%s  %s  %s  %s, fetched %s", l.Name, gitstore.RedactURL(l.URL), mode, plural(j.Memories, "memory", "memories"), ago(env.Now(), st.Fetched))
		if len(j.Unpushed) > 0 {
			line += fmt.Sprintf(", %d unpushed (git mem sync pushes them)", len(j.Unpushed))
		}
		if st.Error != "" {
			line += "; the last refresh failed: " + st.Error
		}
		fmt.Fprintln(env.Out, terminalSafe(line, false))
	}
	if o.json {
		return writeJSON(env.Out, out)
	}
	if len(links) == 0 {
		fmt.Fprintln(env.Out, "no linked stores: git mem link NAME URL adds one")
	}
	return nil
}

func runLinkRefresh(ctx context.Context, env *Env, o *linkOptions) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	links, _ := linkstore.Links(set.Repo)
	interval := time.Duration(0)
	if o.due {
		interval = linkstore.RefreshInterval(set.Repo)
	}
	var errs []error
	found, fetched := false, false
	for _, l := range links {
		if o.name != "" && l.Name != o.name {
			continue
		}
		found = true
		c, err := linkstore.CopyOf(l.URL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res, err := c.Refresh(ctx, linkstore.RefreshOptions{TransportOptions: env.transport(), Interval: interval,
			Wait: !o.due, Now: env.Now, Writer: env.writer(set, "")})
		if err != nil {
			errs = append(errs, fmt.Errorf("refreshing %s: %w", l.Name, err))
			continue
		}
		fetched = fetched || res.Fetched
		if o.quiet {
			continue
		}
		switch {
		case res.Fetched:
			fmt.Fprintf(env.Out, "%s: fetched, %s\n", l.Name, plural(copyCount(c), "memory", "memories"))
		default:
			fmt.Fprintf(env.Out, "%s: not fetched (%s)\n", l.Name, res.Skipped)
		}
	}
	if o.name != "" && !found {
		return &linkstore.NotLinkedError{Name: o.name}
	}
	if fetched {
		warmLinked(ctx, env)
	}
	return errors.Join(errs...)
}

// startLinkRefresh starts "git mem link --refresh --due --quiet" for the
// repository at dir in the background, detached, when a link of it is due:
// after git mem sync, the linked stores are fetched without the command
// waiting for them.
func startLinkRefresh(env *Env, set *gitstore.Set) {
	if set == nil || set.Repo == nil || set.Repo.WorkTree == "" || !linkstore.AnyDue(set.Repo, env.Now()) {
		return
	}
	if backgroundRefresh != nil {
		backgroundRefresh(set.Repo.WorkTree)
		return
	}
	if !env.process {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "-C", set.Repo.WorkTree, "link", "--refresh", "--due", "--quiet")
	detachProcess(cmd)
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}

// backgroundRefresh, when set (tests), replaces the background process of
// startLinkRefresh.
var backgroundRefresh func(dir string)

func wordsReadOnly(err error) (string, error) {
	var e *memerr.ReadOnlyError
	if !errors.As(err, &e) {
		return "", nil
	}
	name, _ := linkstore.NameOf(gitstore.Scope(e.Scope))
	return fmt.Sprintf("the linked store %s is read-only here: its memories are the team's, changed in the org store (git mem link %s URL --write lets this repository write to it)", e.Scope, name), e
}

func wordsNotLinked(err error) (string, error) {
	e := wrapping(err, memerr.ErrNotLinked)
	if e == nil {
		return "", nil
	}
	return e.Error() + "; git mem link --list shows the links, git mem link NAME URL adds one", e
}

// pushLinks pushes what was written to the local copies of the writable
// links (git mem add --to NAME) to their org stores, after git mem sync
// synced the project. A refused push (no write access) says the host's
// words, and the memories stay in the copy, unpushed: nothing is lost.
func pushLinks(ctx context.Context, env *Env, set *gitstore.Set, out io.Writer) error {
	ls, _ := linkstore.Open(set.Repo)
	var errs []error
	for _, l := range ls {
		if !l.Write || l.Copy.Repo == nil {
			continue
		}
		un, err := l.Copy.Unpushed(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("linked store %s: %w", l.Name, err))
			continue
		}
		if len(un) == 0 {
			continue
		}
		if _, err := l.Copy.Push(ctx, env.writer(set, ""), env.transport()); err != nil {
			errs = append(errs, fmt.Errorf("linked store %s: %w; %s kept in the local copy, unpushed (git mem link --list shows them; git mem sync tries again)",
				l.Name, err, plural(len(un), "memory", "memories")))
			continue
		}
		fmt.Fprintf(out, "pushed %s to the linked store %s (%s)\n", plural(len(un), "memory", "memories"), l.Name, gitstore.RedactURL(l.URL))
	}
	return errors.Join(errs...)
}
