package gitstore

import (
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/memerr"
)

// DocumentError is a memory document that failed validateDocument. It is an
// memerr.ErrBadDocument, and a memerr.ErrNotFound: no readable memory has that id, so
// callers that read by id treat it as absent.
type DocumentError struct {
	// ID is the id its file name gives (memories/ab/<ID>.json).
	ID string
	// Blob is the document's object.
	Blob Hash
	// Reason says what is wrong with it.
	Reason string
}

// Path is where the document is in the memory tree.
func (e *DocumentError) Path() string { return memoryPath(e.ID) }

func (e *DocumentError) Error() string {
	return fmt.Sprintf("memory document %s is invalid (%s); it is skipped", e.Path(), e.Reason)
}

// Is makes errors.Is true for memerr.ErrBadDocument and memerr.ErrNotFound.
func (e *DocumentError) Is(target error) bool {
	return target == memerr.ErrBadDocument || target == memerr.ErrNotFound
}

// An invalid document among an AmbiguousError's candidates has this type and
// text: it cannot be read, so there is nothing else to show of it.
const (
	TypeInvalid = "invalid"
	InvalidText = "(invalid document)"
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

// Is makes errors.Is(err, memerr.ErrInvalid) true for an ambiguous prefix: the input was not precise enough.
func (e *AmbiguousError) Is(target error) bool { return target == memerr.ErrInvalid }
