package gitstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// gitDateLayouts are the dated forms git accepts in GIT_AUTHOR_DATE and
// GIT_COMMITTER_DATE besides its internal "<unix> <zone>" form.
var gitDateLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05 -0700",
	time.RFC1123Z,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon Jan 2 15:04:05 2006 -0700",
	"2006-01-02",
}

// parseGitDate reads a date as git does in GIT_AUTHOR_DATE: "@<unix>
// [<zone>]", "<unix> <zone>", RFC 2822, or ISO 8601 (a time without a zone
// is UTC).
func parseGitDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	fields := strings.Fields(strings.TrimPrefix(s, "@"))
	if len(fields) >= 1 && len(fields) <= 2 && (strings.HasPrefix(s, "@") || len(fields) == 2) {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			t := time.Unix(sec, 0).UTC()
			if len(fields) == 2 {
				z, err := time.Parse("-0700", fields[1])
				if err != nil {
					return time.Time{}, fmt.Errorf("%w: date %q: the zone must look like +0200", memerr.ErrInvalid, s)
				}
				t = t.In(z.Location())
			}
			return t, nil
		}
	}
	for _, l := range gitDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: date %q is not one git-mem reads; use @<unix seconds>, RFC 3339 (2026-01-15T12:00:00Z) or RFC 2822", memerr.ErrInvalid, s)
}

// UseGitDates makes the repository's writes honour GIT_AUTHOR_DATE (a
// memory's created or updated time and its commit's author date) and
// GIT_COMMITTER_DATE (the commit's committer date), as git commit does;
// getenv reads the environment.
func (r *Repo) UseGitDates(getenv func(string) string) error {
	if v := getenv("GIT_AUTHOR_DATE"); v != "" {
		t, err := parseGitDate(v)
		if err != nil {
			return fmt.Errorf("GIT_AUTHOR_DATE: %w", err)
		}
		r.Now = func() time.Time { return t }
	}
	if v := getenv("GIT_COMMITTER_DATE"); v != "" {
		t, err := parseGitDate(v)
		if err != nil {
			return fmt.Errorf("GIT_COMMITTER_DATE: %w", err)
		}
		r.committerNow = func() time.Time { return t }
	}
	return nil
}
