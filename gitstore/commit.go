package gitstore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
)

// This file holds what a caller that keeps other refs beside a store's
// (linkstore's proposals and their review) needs to write and read
// commits: a commit written by another identity than the repository's,
// one of a tree holding given documents, and a memory ref moved with
// compare-and-swap.

// Get returns the memory with the full id as the transaction sees it: its
// staged version, else the tip's.
func (tx *Tx) Get(id string) (*Memory, error) { return tx.get(id) }

// CommitAs makes the commit authored by author and committed by committer
// ("Name <email>"; "": the repository's identity), as an accepted
// proposal's commit is the proposer's, committed by its reviewer.
func (tx *Tx) CommitAs(author, committer string) error {
	a, err := identArg("author", author)
	if err != nil {
		return err
	}
	c, err := identArg("committer", committer)
	if err != nil {
		return err
	}
	tx.commitAuthor, tx.committer = a, c
	return nil
}

// SetTip moves the store's ref from `from` to `to` (zero: deletes it), only
// while it still points at from. It reports whether it moved it: false,
// with no error, when another writer moved it first.
func (s *Store) SetTip(from, to Hash) (bool, error) {
	if s.ReadOnly {
		return false, &memerr.ReadOnlyError{Scope: string(s.Scope)}
	}
	err := s.Repo.refs.update(s.Ref, to, from)
	if errors.Is(err, errRefMoved) {
		return false, nil
	}
	return err == nil, err
}

// WriteCommit writes, without moving any ref, a commit of a store holding
// only the memories ms (none: the empty tree) on parents, with the message
// msg, dated when, by author and committer ("Name <email>"; "": the
// repository's identity). A memory a reader would refuse is not written.
func (r *Repo) WriteCommit(parents []Hash, ms []*Memory, msg string, when time.Time, author, committer string) (Hash, error) {
	a, err := identArg("author", author)
	if err != nil {
		return zeroHash, err
	}
	c, err := identArg("committer", committer)
	if err != nil {
		return zeroHash, err
	}
	snap, err := r.snapshotAt(zeroHash)
	if err != nil {
		return zeroHash, err
	}
	var tree Hash
	if len(ms) == 0 {
		tree, err = snap.writeTree(nil)
	} else {
		docs := make(map[string][]byte, len(ms))
		for _, m := range ms {
			if m == nil || !ValidID(m.ID) {
				return zeroHash, fmt.Errorf("%w: not a memory", memerr.ErrInvalid)
			}
			if err := m.check(); err != nil {
				return zeroHash, err
			}
			if docs[m.ID], err = m.Encode(); err != nil {
				return zeroHash, err
			}
		}
		tree, err = snap.buildTree(docs)
	}
	if err != nil {
		return zeroHash, err
	}
	o, err := r.commitObjectAs(tree, parents, msg, when, a, c)
	if err != nil {
		return zeroHash, err
	}
	return r.writeObject(o)
}

// ReadCommit returns the commit h of this repository.
func (r *Repo) ReadCommit(h Hash) (Change, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return Change{}, err
	}
	return changeOf(c), nil
}

// identArg reads the identity of a commit's role ("Name <email>"); nil for
// "": the repository's.
func identArg(role, s string) (*ident, error) {
	if s == "" {
		return nil, nil
	}
	id, ok := identOf(s)
	if !ok {
		return nil, &memerr.InvalidInputError{Field: role, Value: s, Reason: "the " + role + "'s identity is not \"Name <email>\""}
	}
	return &id, nil
}

// IsIdentity reports whether s is a git identity, "Name <email>", as a
// commit's author and committer are written.
func IsIdentity(s string) bool {
	_, ok := identOf(s)
	return ok
}

// identOf reads "Name <email>".
func identOf(s string) (ident, bool) {
	i, j := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if i < 0 || j < i || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return ident{}, false
	}
	id := ident{name: strings.TrimSpace(s[:i]), email: strings.TrimSpace(s[i+1 : j])}
	if id.name == "" || strings.ContainsAny(id.name+id.email, "<>") {
		return ident{}, false
	}
	return id, true
}

// commitObjectAs is commitObject with the author and the committer given
// (nil: the repository's identity).
func (r *Repo) commitObjectAs(tree Hash, parents []Hash, msg string, when time.Time, author, committer *ident) (*gitobj.Object, error) {
	ids := r.identities()
	if author == nil {
		author = &ids.author
	}
	if committer == nil {
		committer = &ids.committer
	}
	sig := signature{Name: author.name, Email: author.email, When: when}
	csig := signature{Name: committer.name, Email: committer.email, When: when}
	if r.committerNow != nil {
		csig.When = r.committerNow().Truncate(time.Second)
	}
	c := &gitCommit{Author: sig, Committer: csig, Message: msg, TreeHash: tree, ParentHashes: parents}
	return r.encodedObject(gitobj.CommitObject, c.Encode())
}
