package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/health"
	"github.com/git-mem/git-mem/linkstore"
)

// staleLink is how old a linked store's copy may be before doctor warns:
// a week of sessions read memory the org store may have changed since.
const staleLink = 7 * 24 * time.Hour

// checkLinks reports each linked store: how old its local copy is, whether
// the last refresh failed (offline: the last copy is read), and what was
// written to it and not pushed. Nothing is fetched.
func checkLinks(ctx context.Context, env *Env, set *gitstore.Set, _ *doctorOptions) []health.Finding {
	if !set.InRepo() {
		return nil
	}
	links, bad := linkstore.Links(set.Repo)
	var out []health.Finding
	for _, b := range bad {
		out = append(out, health.Finding{Check: "links", Status: health.Warn, Message: "ignored: " + b.Error(),
			Fix: "git config --remove-section mem.link.NAME, then git mem link NAME URL"})
	}
	now := env.Now()
	for _, l := range links {
		check := "link " + l.Name
		c, err := linkstore.CopyOf(l.URL)
		if err != nil {
			out = append(out, health.Finding{Check: check, Status: health.Warn, Message: message(err)})
			continue
		}
		st := c.ReadState()
		n := copyCount(c)
		f := health.Finding{Check: check, Status: health.OK,
			Message: fmt.Sprintf("%s, %s fetched %s (%s)", gitstore.RedactURL(l.URL), plural(n, "memory", "memories"), ago(now, st.Fetched), c.Dir)}
		switch {
		case c.Repo == nil || st.Fetched.IsZero():
			f.Status, f.Message = health.Warn, fmt.Sprintf("%s was never fetched: its memories are not read", gitstore.RedactURL(l.URL))
			f.Fix = "git mem link --refresh " + l.Name
		case st.Error != "":
			f.Status = health.Warn
			f.Message = fmt.Sprintf("offline: the last refresh (%s) failed: %s; the copy fetched %s is read", ago(now, st.Tried), st.Error, ago(now, st.Fetched))
			f.Fix = "git mem link --refresh " + l.Name
		case now.Sub(st.Fetched) > staleLink:
			f.Status = health.Warn
			f.Fix = "git mem link --refresh " + l.Name
		}
		if l.Write && c.Repo != nil {
			if un, err := c.Unpushed(ctx); err == nil && len(un) > 0 {
				f.Message += fmt.Sprintf("; %s written here not pushed yet (git mem sync pushes them)", plural(len(un), "memory", "memories"))
				if f.Status == health.OK {
					f.Status = health.Info
				}
			}
		}
		out = append(out, f)
	}
	return out
}
