package gitstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/secret"
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
	// document (see validateDocument). Reads skip it; a pull does not merge it.
	ErrBadDocument = errors.New("invalid memory document")
)

// Narrower kinds of ErrNotFound, each its own sentinel so that a surface
// can say what to do next for it; their messages read as ErrNotFound's and
// name what was looked for.
var (
	// ErrNoMemory: no memory has the id or prefix asked for.
	ErrNoMemory error = &narrowError{broader: ErrNotFound}
	// ErrNotLinked: no linked store has the scope.
	ErrNotLinked error = &narrowError{broader: ErrNotFound}
	// ErrNoProposal: no open proposal is of a memory with the id or prefix.
	ErrNoProposal error = &narrowError{broader: ErrNotFound}
)

// narrowError is a sentinel that is a kind of a broader one: errors.Is
// matches both, and its message is the broader one's.
type narrowError struct{ broader error }

func (e *narrowError) Error() string { return e.broader.Error() }

func (e *narrowError) Is(target error) bool { return target == e.broader }

// DocumentError is a memory document that failed validateDocument. It is an
// ErrBadDocument, and an ErrNotFound: no readable memory has that id, so
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

// Is makes errors.Is true for ErrBadDocument and ErrNotFound.
func (e *DocumentError) Is(target error) bool {
	return target == ErrBadDocument || target == ErrNotFound
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

// Is makes errors.Is(err, ErrInvalid) true for an ambiguous prefix: the input was not precise enough.
func (e *AmbiguousError) Is(target error) bool { return target == ErrInvalid }

// The typed errors below carry the facts of a failure; their messages name
// no command or flag. Each surface (the CLI, the hooks, the MCP server) says
// what to do next in its own words (cmd/errors.go, mcp/format.go).

// Input fields an InvalidInputError names.
const (
	FieldText = "text"
	FieldID   = "id"
	FieldAsOf = "as-of"
	fieldWhen = "when" // a time of --as-of or --valid-at (ParseWhen)
)

// ReasonEmpty is the Reason of an empty text.
const ReasonEmpty = "the text is empty"

// InvalidInputError: one input was rejected; nothing was written. It is an
// ErrInvalid.
type InvalidInputError struct {
	// Field is the input (FieldText, FieldID, FieldAsOf, …).
	Field string
	// Value is the value given ("" when it is not worth repeating).
	Value string
	// Reason says what is wrong with it.
	Reason string
}

func (e *InvalidInputError) Error() string { return fmt.Sprintf("%s: %s", ErrInvalid, e.Reason) }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidInputError) Is(target error) bool { return target == ErrInvalid }

// SecretError: the text holds credentials; nothing was written. It is an
// ErrSecret. Its findings (Kinds) name each kind and byte offset, never the value.
type SecretError struct {
	findings []secret.Finding
}

// Kinds names the findings, e.g. "GitHub token at byte 16".
func (e *SecretError) Kinds() string {
	names := make([]string, len(e.findings))
	for i, f := range e.findings {
		names[i] = f.String()
	}
	return strings.Join(names, ", ")
}

func (e *SecretError) Error() string { return fmt.Sprintf("%s: %s", ErrSecret, e.Kinds()) }

// Is makes errors.Is(err, ErrSecret) true.
func (e *SecretError) Is(target error) bool { return target == ErrSecret }

// NoRepoError: a git repository was needed and there is none. It is an
// ErrNoRepo.
type NoRepoError struct {
	// dir is the directory searched upwards ("" when none was searched).
	dir string
	// Scope, when set, is the store that needs the repository (ScopePrivate).
	Scope Scope
}

func (e *NoRepoError) Error() string {
	if e.Scope != "" {
		return fmt.Sprintf("%s: the %s memory needs a repository", ErrNoRepo, e.Scope)
	}
	return fmt.Sprintf("%s: no git repository at or above %s", ErrNoRepo, e.dir)
}

// Is makes errors.Is(err, ErrNoRepo) true.
func (e *NoRepoError) Is(target error) bool { return target == ErrNoRepo }

// DamagedError: an object the memory needs is missing from the object
// database or unreadable. It is an ErrCorrupt; Err is git's own error. Its
// message says to run git fsck, git's own check, whatever the surface.
type DamagedError struct {
	// What is the kind of object (commit, tree, memory document …).
	What string
	// Object is its id.
	Object string
	// Missing is true when the object is absent, false when unreadable.
	Missing bool
	Err     error
}

func (e *DamagedError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s: %s %s is missing from the object database; run git fsck: %v", ErrCorrupt, e.What, e.Object, e.Err)
	}
	return fmt.Sprintf("%s: cannot read %s %s (%v); run git fsck", ErrCorrupt, e.What, e.Object, e.Err)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *DamagedError) Is(target error) bool { return target == ErrCorrupt }

func (e *DamagedError) Unwrap() error { return e.Err }

// NoRemoteError: the remote to share memory with is neither a configured
// remote nor a URL. It is an ErrRemote.
type NoRemoteError struct {
	// Remote is the name looked for (a URL in it redacted).
	Remote string
}

func (e *NoRemoteError) Error() string {
	return fmt.Sprintf("%s: no remote %q is configured", ErrRemote, e.Remote)
}

// Is makes errors.Is(err, ErrRemote) true.
func (e *NoRemoteError) Is(target error) bool { return target == ErrRemote }

// NothingToPushError: a push found no project memory to send. It is an
// ErrEmptyStore.
type NothingToPushError struct {
	// Remote is the remote it would have gone to, as shown.
	Remote string
}

func (e *NothingToPushError) Error() string {
	return fmt.Sprintf("%s: nothing to push: this repository has no project memory yet", ErrEmptyStore)
}

// Is makes errors.Is(err, ErrEmptyStore) true.
func (e *NothingToPushError) Is(target error) bool { return target == ErrEmptyStore }

// What a BusyError gave up on; running it again is the remedy.
const (
	// BusyPush: a push kept losing the race for the remote's ref.
	BusyPush = "push"
	// BusyPurge: recording a purge's tombstone kept losing the race for
	// refs/memory/main.
	BusyPurge = "purge"
)

// BusyError: other writers kept winning the race for a ref past the retry
// budget; nothing is broken, and the same operation may be run again. It is
// an ErrBusy.
type BusyError struct {
	// Op is what gave up (BusyPush, BusyPurge).
	Op string
	// Remote is the remote pushed to (BusyPush), as shown.
	Remote string
	// Reason says what happened.
	Reason string
}

func (e *BusyError) Error() string { return fmt.Sprintf("%s: %s", ErrBusy, e.Reason) }

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ReadOnlyError: a write was asked of a store that refuses writes (a
// linked store made without write); nothing was written. It is an
// ErrInvalid.
type ReadOnlyError struct {
	Scope Scope
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s: the store %s is read-only here", ErrInvalid, e.Scope)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ReadOnlyError) Is(target error) bool { return target == ErrInvalid }
