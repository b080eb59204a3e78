package surface

import (
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// GitDates are the values of GIT_AUTHOR_DATE and GIT_COMMITTER_DATE in the
// caller's environment ("" when unset): a write's commit takes its times
// from them, as git's own commits do.
type GitDates struct {
	Author    string
	Committer string
}

// GitDatesFrom reads the git date variables with getenv (nil reads none).
func GitDatesFrom(getenv func(string) string) GitDates {
	if getenv == nil {
		return GitDates{}
	}
	return GitDates{Author: getenv("GIT_AUTHOR_DATE"), Committer: getenv("GIT_COMMITTER_DATE")}
}

// getenv answers for the two variables the dates came from.
func (d GitDates) getenv(key string) string {
	switch key {
	case "GIT_AUTHOR_DATE":
		return d.Author
	case "GIT_COMMITTER_DATE":
		return d.Committer
	}
	return ""
}

// Clock is the time of a request: Now (time.Now when nil), overridden for
// a write's commit by the git date variables.
type Clock struct {
	Now   func() time.Time
	Dates GitDates
}

// UseClock sets a repository's clock (nil: nothing to set). A date
// variable that git would reject is an error naming it.
func UseClock(r *gitstore.Repo, c Clock) error {
	if r == nil {
		return nil
	}
	if c.Now != nil {
		r.Now = c.Now
	}
	return r.UseGitDates(c.Dates.getenv)
}

// OpenStores opens the stores seen from dir on the request's clock: the
// repository containing dir (none outside one), the personal store (none
// before it is created) and the repository's linked stores (AttachLinks). Isolated finds the repository by dir's files alone
// (gitstore.OpenIn), never by an inherited GIT_DIR: what a hook payload or
// an MCP client names decides it; the CLI honours GIT_DIR as git does.
func OpenStores(dir string, isolated bool, c Clock) (*gitstore.Set, error) {
	open := gitstore.OpenSet
	if isolated {
		open = gitstore.OpenSetIn
	}
	set, err := open(dir)
	if err != nil {
		return nil, err
	}
	for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
		if err := UseClock(r, c); err != nil {
			return nil, err
		}
	}
	AttachLinks(set, c)
	return set, nil
}
