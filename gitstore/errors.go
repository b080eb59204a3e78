package gitstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
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
	// ErrBadDocument: a stored memory document is not a valid schema-1
	// document (see ValidateDocument). Reads skip it; a pull does not merge it.
	ErrBadDocument = errors.New("invalid memory document")
)

// DocumentError is a memory document that failed ValidateDocument. It is an
// ErrBadDocument, and an ErrNotFound: no readable memory has that id, so
// callers that read by id treat it as absent.
type DocumentError struct {
	// ID is the id its file name gives (memories/ab/<ID>.json).
	ID string
	// Blob is the document's object.
	Blob plumbing.Hash
	// Reason says what is wrong with it.
	Reason string
}

// Path is where the document is in the memory tree.
func (e *DocumentError) Path() string { return MemoryPath(e.ID) }

func (e *DocumentError) Error() string {
	return fmt.Sprintf("memory document %s is invalid (%s); it is skipped: remove it with git mem forget %s (git mem history %s shows its earlier versions)", e.Path(), e.Reason, e.ID, e.ID)
}

// Is makes errors.Is true for ErrBadDocument and ErrNotFound.
func (e *DocumentError) Is(target error) bool {
	return target == ErrBadDocument || target == ErrNotFound
}

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
