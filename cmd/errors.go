package cmd

import (
	"errors"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// message is an error as the CLI says it: the store's typed errors carry
// facts, and the CLI adds what to do next with its own commands and flags
// (the MCP server says the same with its tools, mcp/format.go).
func message(err error) string {
	msg := err.Error()
	for _, r := range []func(error) (typed error, words string){
		wordsNotFound, wordsInvalid, wordsSecret, wordsNoRepo, wordsDamaged, wordsDocument,
	} {
		if typed, words := r(err); typed != nil {
			msg = strings.Replace(msg, typed.Error(), words, 1)
		}
	}
	return msg
}

func wordsNotFound(err error) (error, string) {
	var e *gitstore.NotFoundError
	if !errors.As(err, &e) {
		return nil, ""
	}
	return e, e.Error() + "; see git mem list (or git mem list --all for superseded ones)"
}

func wordsInvalid(err error) (error, string) {
	var e *gitstore.InvalidInputError
	if !errors.As(err, &e) {
		return nil, ""
	}
	switch {
	case e.Field == gitstore.FieldText && e.Reason == gitstore.ReasonEmpty:
		return e, e.Error() + "; pass the memory after --, e.g. git mem add -- 'Bookings are stored in UTC'"
	case e.Field == gitstore.FieldID:
		return e, e.Error() + " shown by git mem list"
	case e.Field == gitstore.FieldAsOf:
		return e, e.Error() + "; see git mem log"
	}
	return nil, ""
}

func wordsSecret(err error) (error, string) {
	var e *gitstore.SecretError
	if !errors.As(err, &e) {
		return nil, ""
	}
	return e, e.Error() + "; memory is shared through git, so never store credentials: remove it (refer to where the secret lives instead), or pass --allow-secret if the value is a harmless example"
}

func wordsNoRepo(err error) (error, string) {
	var e *gitstore.NoRepoError
	if !errors.As(err, &e) {
		return nil, ""
	}
	if e.Scope == gitstore.ScopePrivate {
		return e, gitstore.ErrNoRepo.Error() + ": --private needs a repository; run it inside one, or use --global for your personal store"
	}
	return e, e.Error() + "; run git init, or pass --global to use your personal store"
}

func wordsDamaged(err error) (error, string) {
	var e *gitstore.DamagedError
	if !errors.As(err, &e) {
		return nil, ""
	}
	if e.Missing {
		return e, gitstore.ErrCorrupt.Error() + ": " + e.What + " " + e.Object + " is missing from the object database; run git fsck, and restore it from a clone (git mem pull) if you have one: " + e.Err.Error()
	}
	return e, e.Error() + "; run git fsck"
}

func wordsDocument(err error) (error, string) {
	var e *gitstore.DocumentError
	if !errors.As(err, &e) {
		return nil, ""
	}
	return e, documentWords(e)
}

// documentWords is an invalid document's error with the command that
// removes it.
func documentWords(e *gitstore.DocumentError) string {
	return e.Error() + ": remove it with git mem forget " + e.ID + " (git mem history " + e.ID + " shows its earlier versions)"
}
