package memerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/secret"
)

// Sentinel errors. Callers test them with errors.Is; messages wrap them with
// what went wrong.
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
	// document (gitstore validates every one it reads). Reads skip it; a
	// pull does not merge it.
	ErrBadDocument = errors.New("invalid memory document")
	// ErrRemote: a remote could not be used (refused, unreachable, or it
	// rejected the push). Messages say what to do next.
	ErrRemote = errors.New("memory remote")
	// ErrWriter: the writer's names (agent, subagent, session) were refused
	// by gitstore's Writer.Check; nothing was written.
	ErrWriter = errors.New("the writer's name is refused")
	// ErrChanged: a change made with gitstore.IfVersion found the memory
	// changed since that version; nothing was written.
	ErrChanged = errors.New("the memory changed since it was read")
	// ErrUnsupportedFormat: the repository stores its objects or refs in a
	// format git-mem cannot write (extensions.objectFormat,
	// extensions.refStorage, or another extension git-mem does not know).
	// git-mem opens no such repository, so nothing is read from or written
	// into it.
	ErrUnsupportedFormat = errors.New("unsupported repository format")
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

// The typed errors below carry the facts of a failure; their messages name
// no command or flag. Each surface (the CLI, the hooks, the MCP server, the
// web page) says what to do next in its own words (cmd/errors.go,
// mcp/format.go).

// Input fields an InvalidInputError names.
const (
	FieldText = "text"
	FieldID   = "id"
	FieldAsOf = "as-of"
	FieldWhen = "when" // a time of --as-of or --valid-at
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
	Findings []secret.Finding
}

// Kinds names the findings, e.g. "GitHub token at byte 16".
func (e *SecretError) Kinds() string {
	names := make([]string, len(e.Findings))
	for i, f := range e.Findings {
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
	// Dir is the directory searched upwards ("" when none was searched).
	Dir string
	// Scope, when set, is the store that needs the repository (ScopePrivate).
	Scope string
}

func (e *NoRepoError) Error() string {
	if e.Scope != "" {
		return fmt.Sprintf("%s: the %s memory needs a repository", ErrNoRepo, e.Scope)
	}
	return fmt.Sprintf("%s: no git repository at or above %s", ErrNoRepo, e.Dir)
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
	Scope string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s: the store %s is read-only here", ErrInvalid, e.Scope)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ReadOnlyError) Is(target error) bool { return target == ErrInvalid }

// FormatError is a repository whose format git-mem does not handle. It is an
// ErrUnsupportedFormat and never an ErrNoRepo: a command run in such a
// repository must fail, not fall back to the personal store as it does
// outside any repository.
type FormatError struct {
	// Dir is the repository's common git directory.
	Dir string
	// Extension is the extensions.* key, lower-cased as git compares it
	// ("objectformat", "refstorage", …), and Value its value.
	Extension, Value string
}

func (e *FormatError) Error() string {
	var what string
	switch e.Extension {
	case "objectformat":
		what = fmt.Sprintf("names its objects with %s (extensions.objectFormat=%s), and git-mem writes SHA-1 objects only", algorithmName(e.Value), e.Value)
	case "refstorage":
		what = fmt.Sprintf("keeps its refs in the %s format (extensions.refStorage=%s), and git-mem writes loose refs and packed-refs only", e.Value, e.Value)
	case "compatobjectformat":
		what = fmt.Sprintf("keeps a second object format (extensions.compatObjectFormat=%s), whose object map git-mem does not maintain", e.Value)
	default:
		what = fmt.Sprintf("sets extensions.%s=%s, which git-mem does not know", e.Extension, e.Value)
	}
	return fmt.Sprintf("%s: the repository at %s %s; git-mem keeps no memory in it and wrote nothing", ErrUnsupportedFormat, e.Dir, what)
}

// algorithmName is an object format as git's documentation spells it.
func algorithmName(format string) string {
	if f, ok := strings.CutPrefix(format, "sha"); ok {
		return "SHA-" + f
	}
	return format
}

// Is makes errors.Is(err, ErrUnsupportedFormat) true.
func (e *FormatError) Is(target error) bool { return target == ErrUnsupportedFormat }

// errUnsafeRepo: the repository belongs to another user, and git's
// safe.directory does not name it; git refuses to work in it, and so does
// git-mem, which reads its settings (where a memory could be sent) and
// writes into it.
var errUnsafeRepo = errors.New("repository owned by someone else")

// OwnershipError is a repository git refuses for its ownership ("detected
// dubious ownership"). It is an errUnsafeRepo.
type OwnershipError struct {
	// Dir is the directory safe.directory must name: the worktree, or the
	// git directory of a bare repository.
	Dir string
	// Path is the file found owned by another user.
	Path string
}

func (e *OwnershipError) Error() string {
	return fmt.Sprintf("%s: %s is owned by another user, and git (and git-mem) work in such a repository only when git config --global safe.directory names it; nothing was read or written", errUnsafeRepo, e.Path)
}

// Is makes errors.Is(err, errUnsafeRepo) true.
func (e *OwnershipError) Is(target error) bool { return target == errUnsafeRepo }
