package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

type verifyOptions struct {
	ref   string
	since string
}

func newVerifyCmd(env *Env) *cobra.Command {
	o := &verifyOptions{}
	c := &cobra.Command{
		Use:   "verify [--ref REF [--since OLD]]",
		Short: "Check pushed memory as a server's pre-receive hook, or a memory ref in CI",
		Long: `Check what a push brings to refs/memory/* with the rules git-mem's own writes
follow, and refuse it when it breaks one: a memory document that is invalid or
over the size limit, a secret in a document or a commit message, a tree that is
not a memory store's layout, or history rewritten (a non-fast-forward update, a
deletion) that no purge tombstone explains. Every new commit is checked, not
only the tip. Refs outside refs/memory/* pass untouched; deleting a proposal
(refs/memory/proposals/*) is how a review closes it.

Without --ref it reads git's pre-receive input on stdin ("<old> <new> <ref>"
lines): install it as a bare repository's hooks/pre-receive. With --ref it
checks one ref of this repository, in CI: the commits since --since OLD (the
tip before the push), or the ref's whole history without it.

It prints one line per problem on stderr, naming the ref, the commit, the
memory and the reason (never a secret's value), and exits 1; when all is well
it prints nothing and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.since != "" && o.ref == "" {
				return usagef("--since needs --ref")
			}
			if o.ref != "" && !strings.HasPrefix(o.ref, "refs/memory/") {
				return usagef("--ref names a memory ref (refs/memory/...), not %q", o.ref)
			}
			return runVerify(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.ref, "ref", "", "check this memory `ref` of the repository (CI) instead of reading a push on stdin")
	c.Flags().StringVar(&o.since, "since", "", "with --ref: the `commit` the ref pointed at before the push (full id)")
	return c
}

// maxVerifyLines bounds the problems printed: a push of unrelated history
// to a memory ref fails every commit, and the first lines say why.
const maxVerifyLines = 100

func runVerify(ctx context.Context, env *Env, o *verifyOptions) error {
	var updates []gitstore.RefUpdate
	if o.ref == "" {
		in, err := io.ReadAll(env.In)
		if err != nil {
			return fmt.Errorf("reading the ref updates from stdin: %w", err)
		}
		if updates, err = gitstore.ParseRefUpdates(bytes.NewReader(in)); err != nil {
			return verifyCannot(err)
		}
		if len(updates) == 0 {
			return nil // no memory ref: not git-mem's to judge
		}
	}
	repo, err := gitstore.Open(env.Dir)
	if err != nil {
		return verifyCannot(err)
	}
	repo.UseObjectEnvironment(env.Getenv, env.Dir)
	if o.ref != "" {
		since, ok := gitstore.HashOf(o.since) // all zeros: the ref was created
		if !ok {
			return usagef("--since takes a full commit id, not %q", o.since)
		}
		u, err := repo.UpdateSince(o.ref, since)
		if errors.Is(err, memerr.ErrNotFound) {
			return fmt.Errorf("there is no ref %s in this repository; in CI, fetch the memory refs first: git fetch origin '+refs/memory/*:refs/memory/*'", o.ref)
		}
		if err != nil {
			return err
		}
		updates = []gitstore.RefUpdate{u}
	}
	found, err := repo.Verify(ctx, updates)
	if err != nil {
		return verifyCannot(err)
	}
	if len(found) == 0 {
		return nil
	}
	for i, r := range found {
		if i == maxVerifyLines {
			fmt.Fprintf(env.Err, "git mem verify: … and %d more\n", len(found)-i)
			break
		}
		fmt.Fprintf(env.Err, "git mem verify: %s\n", terminalSafe(rejectionWords(r), false))
	}
	what := plural(len(found), "problem", "problems")
	if o.ref == "" {
		return fmt.Errorf("the push to refs/memory/* is refused (%s above); nothing was changed here: fix them in the clone and push again", what)
	}
	return fmt.Errorf("%s fails the check (%s above)", o.ref, what)
}

// verifyCannot is an error that kept verify from checking: the push is
// refused all the same, since what it brings was not checked.
func verifyCannot(err error) error {
	if errors.Is(err, memerr.ErrUnsupportedFormat) {
		return fmt.Errorf("cannot check the memory pushed, so it is refused: %w", err)
	}
	return fmt.Errorf("cannot check the memory pushed: %w", err)
}

// rejectionWords is one line of verify's output: where, what, and what to
// do about it.
func rejectionWords(r gitstore.Rejection) string {
	where := r.Ref
	if !r.Commit.IsZero() {
		where += " " + r.Commit.String()[:10]
	}
	if r.ID != "" {
		where += ": memory " + r.ID
	}
	switch r.Kind {
	case gitstore.RejectSecret:
		return fmt.Sprintf("%s: holds a secret (%s); memory is shared through git and never stores credentials", where, r.Reason)
	case gitstore.RejectLayout:
		return fmt.Sprintf("%s: not git-mem's layout: %s", where, r.Reason)
	case gitstore.RejectRewrite:
		return fmt.Sprintf("%s: rewrites history: %s; merge instead (git mem pull, then push), or remove a memory with git mem forget --purge", where, r.Reason)
	case gitstore.RejectDeletion:
		return fmt.Sprintf("%s: %s; remove a memory with git mem forget --purge instead", where, r.Reason)
	default:
		return where + ": " + r.Reason
	}
}
