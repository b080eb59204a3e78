package gitstore

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Callers test them with errors.Is; messages wrap them with
// what went wrong and what to do next.
var (
	// ErrNotFound: no memory has the given id or prefix.
	ErrNotFound = errors.New("memory not found")
	// ErrInvalid: the input (text, type, tag, path, time) was rejected; nothing was written.
	ErrInvalid = errors.New("invalid input")
	// ErrNoRepo: the directory is not inside a git repository.
	ErrNoRepo = errors.New("not a git repository")
	// ErrCorrupt: a stored object is missing or unreadable.
	ErrCorrupt = errors.New("memory store is damaged")
	// ErrBusy: the memory ref stayed locked, or kept moving, past the retry budget.
	ErrBusy = errors.New("memory ref is busy")
	// ErrEmptyStore: the memory ref does not exist yet.
	ErrEmptyStore = errors.New("no memories yet")
	// ErrRetired: the memory was already superseded.
	ErrRetired = errors.New("memory is superseded")
	// ErrSecret: the text contains a credential; nothing was written.
	ErrSecret = errors.New("text contains a secret")
)

// AmbiguousError is returned when an id prefix matches several memories.
type AmbiguousError struct {
	Prefix     string
	Candidates []Memory
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "id prefix %q is ambiguous; give more characters. Candidates:", e.Prefix)
	for _, m := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s  %s: %s", m.ID, m.Type, Summary(m.Text, 60))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true for an ambiguous prefix: the input was not precise enough.
func (e *AmbiguousError) Is(target error) bool { return target == ErrInvalid }
