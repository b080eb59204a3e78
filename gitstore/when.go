package gitstore

import (
	"fmt"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// ParseWhen reads a WHEN of --as-of and --valid-at that is a time: RFC 3339,
// a date (YYYY-MM-DD, the end of that day in UTC, so "as of 2026-11-30"
// includes that day's changes), or "now". Anything else is an
// memerr.InvalidInputError of memerr.FieldWhen; a caller that also takes a commit of the
// memory ref tries that next.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Add(24*time.Hour - time.Second), nil
	}
	if s == "now" {
		return now, nil
	}
	return time.Time{}, &memerr.InvalidInputError{Field: memerr.FieldWhen, Value: s,
		Reason: fmt.Sprintf("%q is not a time; use RFC 3339 (2026-11-30T08:00:00Z), a date (2026-11-30), or a commit of the memory ref", s)}
}
