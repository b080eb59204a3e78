package cmd

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// message is an error as the CLI says it: the store's typed errors carry
// facts, and the CLI adds what to do next with its own commands and flags
// (the MCP server says the same with its tools, mcp/format.go).
func message(err error) string {
	msg := err.Error()
	for _, r := range []func(error) (words string, typed error){
		wordsNotFound, wordsInvalid, wordsSecret, wordsNoRepo, wordsDamaged, wordsDocument,
		wordsNoRemote, wordsNothingToPush, wordsBusy, wordsAmbiguous, wordsFormat, wordsUnsafe,
		wordsReadOnly, wordsNotLinked, wordsChanged,
	} {
		if words, typed := r(err); typed != nil {
			msg = strings.Replace(msg, typed.Error(), words, 1)
		}
	}
	return msg
}

func wordsNotFound(err error) (string, error) {
	e := wrapping(err, memerr.ErrNoMemory)
	if e == nil {
		return "", nil
	}
	return e.Error() + "; see git mem list (or git mem list --all for superseded ones)", e
}

// wrapping is the error of err's chain that wraps sentinel itself (the
// store's "%w: what was looked for"), the part of the message the CLI's
// words replace; nil when the chain has none.
func wrapping(err, sentinel error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errors.Unwrap(e) == sentinel {
			return e
		}
	}
	return nil
}

func wordsInvalid(err error) (string, error) {
	var e *memerr.InvalidInputError
	if !errors.As(err, &e) {
		return "", nil
	}
	switch {
	case e.Field == memerr.FieldText && e.Reason == memerr.ReasonEmpty:
		return e.Error() + "; pass the memory after --, e.g. git mem add -- 'Bookings are stored in UTC'", e
	case e.Field == memerr.FieldID:
		return e.Error() + " shown by git mem list", e
	case e.Field == memerr.FieldAsOf:
		return e.Error() + "; see git mem log", e
	}
	return "", nil
}

func wordsSecret(err error) (string, error) {
	var e *memerr.SecretError
	if !errors.As(err, &e) {
		return "", nil
	}
	return e.Error() + "; memory is shared through git, so never store credentials: remove it (refer to where the secret lives instead)" + allowSecretAdvice, e
}

// allowSecretAdvice ends the secret's words for a command that has the
// flag; the others say the rest alone (messageFor).
const allowSecretAdvice = ", or pass --allow-secret if the value is a harmless example"

// messageFor is message as the command that ran says it: a flag it does
// not have is never offered.
func messageFor(ran *cobra.Command, err error) string {
	msg := message(err)
	writer := errors.Is(err, memerr.ErrWriter) // no flag lets a writer's name through
	if ran == nil || ran.Flags().Lookup("allow-secret") == nil || writer {
		msg = strings.Replace(msg, allowSecretAdvice, "", 1)
	}
	if writer {
		msg += "; the writer is named by --agent, GIT_MEM_AGENT or git config mem.agent, its session by GIT_MEM_SESSION or CLAUDE_CODE_SESSION_ID: give them plain names"
	}
	return msg
}

func wordsNoRepo(err error) (string, error) {
	var e *memerr.NoRepoError
	if !errors.As(err, &e) {
		return "", nil
	}
	if gitstore.Scope(e.Scope) == gitstore.ScopePrivate {
		return memerr.ErrNoRepo.Error() + ": --private needs a repository; run it inside one, or use --global for your personal store", e
	}
	return e.Error() + "; run git init, or pass --global to use your personal store", e
}

func wordsDamaged(err error) (string, error) {
	var e *memerr.DamagedError
	if !errors.As(err, &e) {
		return "", nil
	}
	if e.Missing {
		return memerr.ErrCorrupt.Error() + ": " + e.What + " " + e.Object + " is missing from the object database; run git fsck, and restore it from a clone (git mem pull) if you have one: " + e.Err.Error(), e
	}
	return "", nil
}

func wordsDocument(err error) (string, error) {
	var e *gitstore.DocumentError
	if !errors.As(err, &e) {
		return "", nil
	}
	return documentWords(e), e
}

// documentWords is an invalid document's error with the command that
// removes it.
func documentWords(e *gitstore.DocumentError) string {
	return e.Error() + ": remove it with git mem forget " + e.ID + " (git mem history " + e.ID + " shows its earlier versions)"
}

func wordsNoRemote(err error) (string, error) {
	var e *memerr.NoRemoteError
	if !errors.As(err, &e) {
		return "", nil
	}
	return e.Error() + "; add one with git remote add " + e.Remote + " URL, set git config mem.remote NAME-OR-URL, or give the remote: git mem pull URL", e
}

func wordsNothingToPush(err error) (string, error) {
	var e *memerr.NothingToPushError
	if !errors.As(err, &e) {
		return "", nil
	}
	return e.Error() + " (git mem add, or git mem pull " + e.Remote + ")", e
}

func wordsBusy(err error) (string, error) {
	var e *memerr.BusyError
	if !errors.As(err, &e) {
		return "", nil
	}
	switch e.Op {
	case memerr.BusyPush:
		return e.Error() + "; run git mem sync " + e.Remote + " again", e
	case memerr.BusyPurge:
		return e.Error() + "; run git mem forget --purge again", e
	}
	return "", nil
}

// wordsAmbiguous points at doctor for each invalid document among the
// candidates.
func wordsAmbiguous(err error) (string, error) {
	var e *gitstore.AmbiguousError
	if !errors.As(err, &e) {
		return "", nil
	}
	invalid := gitstore.TypeInvalid + ": " + gitstore.InvalidText
	return strings.ReplaceAll(e.Error(), invalid, strings.TrimSuffix(invalid, ")")+": see git mem doctor)"), e
}

// wordsFormat: git-mem has no memory to offer in a repository whose format
// it cannot write; the personal store still works from outside it.
func wordsFormat(err error) (string, error) {
	var e *memerr.FormatError
	if !errors.As(err, &e) {
		return "", nil
	}
	switch e.Extension {
	case "objectformat", "refstorage", "compatobjectformat":
		return e.Error() + "; this version of git-mem cannot keep memory in this repository (your personal store still works from a directory outside it: git mem add --global -- TEXT)", e
	}
	return e.Error() + "; a newer git-mem may know it (see git mem version)", e
}

// wordsUnsafe names the exception that lets git and git-mem work in a
// repository of another user.
func wordsUnsafe(err error) (string, error) {
	var e *memerr.OwnershipError
	if !errors.As(err, &e) {
		return "", nil
	}
	return e.Error() + "; if you trust it: git config --global --add safe.directory " + e.Dir, e
}

// wordsChanged: a change given --if-version found the memory changed since.
func wordsChanged(err error) (string, error) {
	e := wrapping(err, memerr.ErrChanged)
	if e == nil {
		return "", nil
	}
	return e.Error() + "; nothing was changed: see git mem show for what changed, and run the command again with its version if your change still holds", e
}
