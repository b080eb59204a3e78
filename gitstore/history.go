package gitstore

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// Version is one state of a memory in the history of its ref: the change
// that made it (its Op "rewrite" when the commit names other memories and
// is no merge: a purge's rewrite of the history), and the document after it.
type Version struct {
	Change
	// Memory is the document after the change; nil when the change removed
	// it or left an invalid document.
	Memory *Memory
	// Invalid says why the document after the change is invalid (see
	// validateDocument); empty when it is valid or absent.
	Invalid string
}

// Change is one commit of a memory ref, as git mem log shows it.
type Change struct {
	Commit  Hash
	Time    time.Time
	Op      string
	IDs     []string
	Agent   string
	Session string
	Author  string
	Subject string
	Merge   bool
	// AuthorTime is when Author wrote it (Time is the committer's);
	// Committer is who committed it, "Name <email>".
	AuthorTime time.Time
	Committer  string
	// Parents are the commit's parents, the first first; Message its
	// whole message.
	Parents []Hash
	Message string
}

// trailers parses the "Key: value" lines of a commit message's last paragraph.
func trailers(msg string) map[string][]string {
	out := map[string][]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	if len(paras) < 2 {
		return out
	}
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(k, " \t") {
			out[k] = append(out[k], strings.TrimSpace(v))
		}
	}
	return out
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func changeOf(c *gitCommit) Change {
	t := trailers(c.Message)
	subject, _, _ := strings.Cut(c.Message, "\n")
	op := first(t[trailerOp])
	if op == "" && len(c.ParentHashes) > 1 {
		op = "merge"
	}
	return Change{
		Commit: Hash(c.Hash), Time: c.Committer.When, Op: op, IDs: t[trailerID],
		Agent: first(t[trailerAgent]), Session: first(t[trailerSession]),
		Author:  c.Author.Name + " <" + c.Author.Email + ">",
		Subject: subject, Merge: len(c.ParentHashes) > 1,
		AuthorTime: c.Author.When, Committer: c.Committer.Name + " <" + c.Committer.Email + ">",
		Parents: c.ParentHashes, Message: c.Message,
	}
}

// commitQueue orders commits newest first, like git log's default walk.
type commitQueue []*gitCommit

func (q commitQueue) Len() int           { return len(q) }
func (q commitQueue) Less(i, j int) bool { return q[i].Committer.When.After(q[j].Committer.When) }
func (q commitQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)        { *q = append(*q, x.(*gitCommit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// walk visits every commit reachable from tip, newest first, until fn returns false.
func (r *Repo) walk(ctx context.Context, tip Hash, fn func(c *gitCommit) (bool, error)) error {
	if tip.IsZero() {
		return nil
	}
	c, err := r.readCommit(tip)
	if err != nil {
		return err
	}
	seen := map[Hash]bool{tip: true}
	q := &commitQueue{c}
	shallow := r.shallowBoundary()
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := heap.Pop(q).(*gitCommit)
		more, err := fn(c)
		if err != nil || !more {
			return err
		}
		for _, p := range parentsIn(c, shallow) {
			if seen[Hash(p)] {
				continue
			}
			seen[Hash(p)] = true
			pc, err := r.readCommit(Hash(p))
			if err != nil {
				return err
			}
			heap.Push(q, pc)
		}
	}
	return nil
}

// Log returns the newest limit changes of the ref (all when limit <= 0).
func (s *Store) Log(ctx context.Context, limit int) ([]Change, error) {
	tip, err := s.Tip()
	if err != nil {
		return nil, err
	}
	var out []Change
	err = s.Repo.walk(ctx, tip, func(c *gitCommit) (bool, error) {
		out = append(out, changeOf(c))
		return limit <= 0 || len(out) < limit, nil
	})
	return out, err
}

// History returns every version of the memory with the full id, newest first:
// each commit that added, changed or removed its document.
func (s *Store) History(ctx context.Context, id string) ([]Version, error) {
	tip, err := s.Tip()
	if err != nil {
		return nil, err
	}
	blobAt := func(h Hash) (Hash, error) {
		snap, err := s.Repo.snapshotAt(h)
		if err != nil {
			return zeroHash, err
		}
		return snap.blobHash(id)
	}
	var out []Version
	err = s.Repo.walk(ctx, tip, func(c *gitCommit) (bool, error) {
		h, err := blobAt(Hash(c.Hash))
		if err != nil {
			return false, err
		}
		changed := true
		for _, p := range c.ParentHashes {
			ph, err := blobAt(Hash(p))
			if err != nil {
				return false, err
			}
			if ph == h {
				changed = false
				break
			}
		}
		if !changed || (h.IsZero() && len(c.ParentHashes) == 0) {
			return true, nil
		}
		ch := changeOf(c)
		v := Version{Change: ch}
		if !containsString(ch.IDs, id) && !ch.Merge {
			v.Op = "rewrite"
		}
		if !h.IsZero() {
			v.Memory, err = s.Repo.readMemory(h, id)
			var de *DocumentError
			if errors.As(err, &de) {
				v.Invalid = de.Reason // shown as such; the walk goes on
			} else if err != nil {
				return false, err
			} else {
				v.Memory.scope = s.Scope
			}
		}
		out = append(out, v)
		return true, nil
	})
	return out, err
}

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// CommitAt returns the commit the ref pointed to at time t: the newest commit
// on its first-parent line committed at or before t; zero when none was.
func (s *Store) CommitAt(t time.Time) (Hash, error) {
	h, err := s.Tip()
	if err != nil {
		return zeroHash, err
	}
	shallow := s.Repo.shallowBoundary()
	for !h.IsZero() {
		c, err := s.Repo.readCommit(h)
		if err != nil {
			return zeroHash, err
		}
		if !c.Committer.When.After(t) {
			return h, nil
		}
		parents := parentsIn(c, shallow)
		if len(parents) == 0 {
			return zeroHash, nil
		}
		h = Hash(parents[0])
	}
	return zeroHash, nil
}

// ResolveCommit resolves a commit of the memory ref: a full or abbreviated
// commit id reachable from the ref, or the ref itself ("main", "refs/memory/main"),
// either followed by ~N.
func (s *Store) ResolveCommit(ctx context.Context, spec string) (Hash, error) {
	base, back := spec, 0
	if i := strings.LastIndex(spec, "~"); i >= 0 {
		n, err := strconv.Atoi(spec[i+1:])
		if spec[i+1:] == "" {
			n, err = 1, nil
		}
		if err != nil || n < 0 {
			return zeroHash, fmt.Errorf("%w: %q: write ~N with a number", memerr.ErrInvalid, spec)
		}
		base, back = spec[:i], n
	}
	tip, err := s.Tip()
	if err != nil {
		return zeroHash, err
	}
	var h Hash
	switch base {
	case s.Ref, strings.TrimPrefix(s.Ref, "refs/memory/"), "HEAD", "":
		h = tip
	default:
		p := strings.ToLower(base)
		if len(p) < MinPrefixLen || !isHex(p) {
			return zeroHash, &memerr.InvalidInputError{Field: memerr.FieldAsOf, Value: spec, Reason: fmt.Sprintf("%q is neither a time (RFC 3339 or YYYY-MM-DD) nor a commit of %s", spec, s.Ref)}
		}
		var matches []Hash
		err := s.Repo.walk(ctx, tip, func(c *gitCommit) (bool, error) {
			if strings.HasPrefix(c.Hash.String(), p) {
				matches = append(matches, Hash(c.Hash))
			}
			return true, nil
		})
		if err != nil {
			return zeroHash, err
		}
		switch len(matches) {
		case 0:
			return zeroHash, fmt.Errorf("%w: no commit %q on %s", memerr.ErrNotFound, base, s.Ref)
		case 1:
			h = matches[0]
		default:
			return zeroHash, fmt.Errorf("%w: commit prefix %q is ambiguous on %s; give more digits", memerr.ErrInvalid, base, s.Ref)
		}
	}
	shallow := s.Repo.shallowBoundary()
	for ; back > 0 && !h.IsZero(); back-- {
		c, err := s.Repo.readCommit(h)
		if err != nil {
			return zeroHash, err
		}
		parents := parentsIn(c, shallow)
		if len(parents) == 0 {
			return zeroHash, fmt.Errorf("%w: %q goes back past the first commit of %s this repository has", memerr.ErrNotFound, spec, s.Ref)
		}
		h = Hash(parents[0])
	}
	return h, nil
}

// shallowBoundary returns the commits a shallow clone's history ends at
// (<common dir>/shallow, which git fetch --depth writes): git reads them as
// commits without parents, and so do the walks of the memory's history.
// Nil outside a shallow clone. A rewrite of history (purge) does not use
// it: it must fail on a missing parent, never cut the history there.
func (r *Repo) shallowBoundary() map[Hash]bool {
	if r.CommonDir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(r.CommonDir, "shallow"))
	if err != nil {
		return nil
	}
	out := map[Hash]bool{}
	for _, line := range strings.Fields(string(data)) {
		if h, ok := parseHash(line); ok {
			out[h] = true
		}
	}
	return out
}

// parentsIn is c's parents as history walks see them: none past a shallow
// clone's boundary.
func parentsIn(c *gitCommit, shallow map[Hash]bool) []Hash {
	if shallow[Hash(c.Hash)] {
		return nil
	}
	return c.ParentHashes
}
