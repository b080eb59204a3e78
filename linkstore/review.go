package linkstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Proposals are how someone without the right to write a store's
// refs/memory/main contributes to it, and how a team that protects that
// ref reviews what is written there:
//
//   - refs/memory/proposals/<author>/<id>: one proposed memory, a root
//     commit whose tree is a memory store's layout holding that one
//     document (memories/ab/<id>.json), authored by the proposer. <author>
//     is a slug of the proposer's email (authorSlug). Deleting the ref is
//     how a review closes it (gitstore's Verify lets it).
//   - refs/memory/reviews/rejected: the record of rejections, one commit
//     per rejection on the last, each with the empty tree (a store holding
//     nothing, so a server's check reads it as any memory ref), the reason
//     and the proposal's id, author and commit in its message. The rejected
//     text is not kept: a proposal may be rejected for what it says.
//
// An accepted proposal becomes an ordinary commit on refs/memory/main
// whose author is the proposer and committer the reviewer.

const (
	// proposalsPrefix holds the proposals of a store
	// (refs/memory/proposals/<author>/<id>).
	proposalsPrefix = "refs/memory/proposals/"
	// refRejected records the rejected proposals.
	refRejected = reviewsPrefix + "rejected"

	reviewsPrefix = "refs/memory/reviews/"
)

// Memory-Op values of the commits of proposals and rejections, and the
// trailers that name a proposal. trailerID and trailerOp are gitstore's
// commit trailers (git mem log reads them): the memory a commit is about,
// and what it did.
const (
	opPropose = "propose"
	opReject  = "reject"
	// opSupersede is the Memory-Op of a write that replaces a memory, as
	// git mem add --supersedes records it.
	opSupersede = "supersede"

	trailerID         = "Memory-Id"
	trailerOp         = "Memory-Op"
	trailerProposedBy = "Proposed-By"
	trailerProposal   = "Proposal"
	trailerReason     = "Reason"
)

// maxSlugBytes bounds the <author> of a proposal's ref.
const maxSlugBytes = 64

// maxFieldBytes bounds a proposer's identity and a rejection's reason, as
// gitstore bounds a memory's short text fields.
const maxFieldBytes = 512

// maxReasonBytes bounds a rejection's reason.
const maxReasonBytes = maxFieldBytes

// proposalRef is the ref of a proposal.
func proposalRef(author, id string) string { return proposalsPrefix + author + "/" + id }

// authorSlug is the <author> of the proposals made by identity ("Name
// <email>"): its email (else its name), lower-cased, each run of other
// characters than letters, digits, '.', '_' and '-' made one '-', at most
// maxSlugBytes. "" when nothing is left.
func authorSlug(identity string) string {
	src := identity
	if i, j := strings.LastIndexByte(identity, '<'), strings.LastIndexByte(identity, '>'); i >= 0 && j > i {
		if src = strings.TrimSpace(identity[i+1 : j]); src == "" {
			src = identity[:i]
		}
	}
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(src) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' {
			b.WriteRune(c)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
		}
		dash = true
	}
	s := b.String()
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	if len(s) > maxSlugBytes {
		s = s[:maxSlugBytes]
	}
	s = strings.TrimSuffix(strings.Trim(s, "-._"), ".lock")
	return strings.Trim(s, "-._")
}

// checkAuthorSlug refuses an <author> that authorSlug would not make: it
// names a ref, and comes from others' pushes.
func checkAuthorSlug(s string) error {
	bad := func(reason string) error {
		return &memerr.InvalidInputError{Field: "proposal author", Value: s, Reason: reason}
	}
	if s == "" || len(s) > maxSlugBytes {
		return bad(fmt.Sprintf("a proposal's author is 1 to %d bytes", maxSlugBytes))
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '.' || c == '_' || c == '-') && i > 0 && i < len(s)-1:
		default:
			return bad(fmt.Sprintf("%s is not a proposal author (lower-case letters, digits, . _ -)", quoteShort(s)))
		}
	}
	if strings.Contains(s, "..") || strings.HasSuffix(s, ".lock") {
		return bad(fmt.Sprintf("%s is not a proposal author", quoteShort(s)))
	}
	return nil
}

// parseProposalName splits "<author>/<id>" (a ref under a proposals
// prefix), both checked.
func parseProposalName(name string) (author, id string, err error) {
	author, id, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(id, "/") {
		return "", "", &memerr.InvalidInputError{Field: "proposal", Value: name, Reason: fmt.Sprintf("%s is not <author>/<id>", quoteShort(name))}
	}
	if err := checkAuthorSlug(author); err != nil {
		return "", "", err
	}
	if !gitstore.ValidID(id) {
		return "", "", &memerr.InvalidInputError{Field: "proposal", Value: name, Reason: fmt.Sprintf("%s does not end in a memory id", quoteShort(name))}
	}
	return author, id, nil
}

// quoteShort quotes a value for an error message: escaped, and cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "…"
	}
	return strconv.Quote(s)
}

// checkProposal refuses a memory that may not be proposed: an invalid
// document, a retired one, or one that holds a secret in any field that
// reaches the other store (the secret rules of every write, with no
// exception for a harmless example: the text goes to other people's
// repositories).
func checkProposal(m *gitstore.Memory, now time.Time) error {
	if m == nil || !gitstore.ValidID(m.ID) {
		return fmt.Errorf("%w: not a memory", memerr.ErrInvalid)
	}
	if m.Type == gitstore.TypeHandoff || m.Type == gitstore.TypeSession {
		return fmt.Errorf("%w: a %s belongs to its repository's sessions; propose facts, decisions, gotchas, conventions, commands or preferences", memerr.ErrInvalid, m.Type)
	}
	if m.SupersededBy != "" || m.Retired(now) {
		return fmt.Errorf("%w: %s is no longer current; propose the memory that replaced it", memerr.ErrRetired, gitstore.Clip(m.ID, gitstore.MinShownPrefix))
	}
	return m.Check()
}

// checkReviewer refuses a reviewer that is not "Name <email>" ("": the
// repository's identity).
func checkReviewer(s string) error {
	if s == "" || gitstore.IsIdentity(s) {
		return nil
	}
	return &memerr.InvalidInputError{Field: "reviewer", Value: s, Reason: "the reviewer's identity is not \"Name <email>\"; set git config user.name and user.email"}
}

// propose writes m as a proposal by proposer ("Name <email>") in r (its
// objects, no ref) and pushes it to the remote's
// refs/memory/proposals/<author>/<id>, replacing only the proposer's own
// earlier proposal of the same memory, and returns the proposal as sent;
// replaced says whether it replaced one. The memory's anchor is left out.
// When the remote refuses, the error holds the host's message.
func propose(ctx context.Context, r *gitstore.Repo, rem *gitstore.Remote, m *gitstore.Memory, proposer string, t gitstore.TransportOptions) (p Proposal, replaced bool, err error) {
	if err := checkProposal(m, r.Now()); err != nil {
		return Proposal{}, false, err
	}
	if !gitstore.IsIdentity(proposer) {
		return Proposal{}, false, &memerr.InvalidInputError{Field: "proposer", Value: proposer, Reason: "the proposer's identity is not \"Name <email>\"; set git config user.name and user.email"}
	}
	slug := authorSlug(proposer)
	if err := checkAuthorSlug(slug); err != nil {
		return Proposal{}, false, fmt.Errorf("%w; set git config user.email", err)
	}
	// the anchor is a commit of the proposer's repository, which the
	// store's readers do not have
	sent := *m
	sent.Anchor = nil
	msg := "mem: " + opPropose + " " + gitstore.Clip(m.ID, gitstore.MinShownPrefix) + " " + gitstore.Summary(m.Type+": "+m.Text, 72) + "\n\n" +
		trailerID + ": " + m.ID + "\n" + trailerOp + ": " + opPropose + "\n"
	now := r.Now().UTC().Truncate(time.Second)
	commit, err := r.WriteCommit(nil, []*gitstore.Memory{&sent}, msg, now, proposer, proposer)
	if err != nil {
		return Proposal{}, false, err
	}
	p = Proposal{Ref: proposalRef(slug, m.ID), Author: slug, ID: m.ID, Commit: commit, Proposer: proposer, Date: now, Memory: &sent}
	old, err := r.RemoteRef(ctx, rem, p.Ref, t)
	if err != nil {
		return Proposal{}, false, err
	}
	if err := r.PushRef(ctx, rem, p.Ref, old, commit, t); err != nil {
		return Proposal{}, false, err
	}
	return p, !old.IsZero(), nil
}

// proposalsTracking is where a remote's proposals are fetched to.
func proposalsTracking(rem *gitstore.Remote) string {
	return "refs/memory/remotes/" + rem.Slug + "/proposals/"
}

// reviewsTracking is where a remote's record of reviews is fetched to.
func reviewsTracking(rem *gitstore.Remote) string {
	return "refs/memory/remotes/" + rem.Slug + "/reviews/"
}

// rejectedTracking is the fetched record of rejections of a remote.
func rejectedTracking(r *gitstore.Repo, rem *gitstore.Remote) *gitstore.Store {
	return gitstore.NewStore(r, reviewsTracking(rem)+strings.TrimPrefix(refRejected, reviewsPrefix), gitstore.ScopeProject)
}

// fetchProposalRefs brings the remote's proposals
// (refs/memory/proposals/*) and its record of rejections
// (refs/memory/reviews/*) under refs/memory/remotes/<remote>/, removing
// those the remote no longer has.
func fetchProposalRefs(ctx context.Context, r *gitstore.Repo, rem *gitstore.Remote, t gitstore.TransportOptions) error {
	err := r.FetchRefs(ctx, rem, t,
		"+"+proposalsPrefix+"*:"+proposalsTracking(rem)+"*",
		"+"+reviewsPrefix+"*:"+reviewsTracking(rem)+"*")
	if err != nil {
		return fmt.Errorf("%w: fetching the proposals of %s failed (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	return nil
}

// fetchProposals brings the remote's proposals and its record of
// rejections (fetchProposalRefs) and returns them: the proposals oldest
// first, each checked as a write is (checkProposal; one that fails says
// why in its Err), and the rejected ones newest first.
func fetchProposals(ctx context.Context, r *gitstore.Repo, rem *gitstore.Remote, t gitstore.TransportOptions) ([]Proposal, []RejectedProposal, error) {
	if err := fetchProposalRefs(ctx, r, rem, t); err != nil {
		return nil, nil, err
	}
	ps, err := proposals(r, rem)
	if err != nil {
		return nil, nil, err
	}
	rj, err := rejections(r, rem)
	if err != nil {
		return nil, nil, err
	}
	return ps, rj, nil
}

// Proposal is one proposed memory, as last fetched.
type Proposal struct {
	// Ref is the proposal's ref on the remote.
	Ref string
	// Author is the <author> of the ref.
	Author string
	ID     string
	Commit gitstore.Hash
	// Proposer is the commit's author, "Name <email>"; Date its time.
	Proposer string
	Date     time.Time
	// Memory is the proposed memory; nil when Err says why it cannot be
	// read or accepted.
	Memory *gitstore.Memory
	Err    error
}

// proposals returns the remote's proposals as last fetched
// (fetchProposalRefs), oldest first. Everything in them is others' input:
// each is checked as a write is (checkProposal), and one that fails says
// why in Err. Refs whose names are no proposal's are left out.
func proposals(r *gitstore.Repo, rem *gitstore.Remote) ([]Proposal, error) {
	refs, err := r.ListRefs(proposalsTracking(rem))
	if err != nil {
		return nil, err
	}
	var out []Proposal
	for name, h := range refs {
		rest := strings.TrimPrefix(name, proposalsTracking(rem))
		author, id, err := parseProposalName(rest)
		if err != nil {
			continue
		}
		out = append(out, readProposal(r, proposalRef(author, id), author, id, h))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.Before(out[j].Date)
		}
		return out[i].Ref < out[j].Ref
	})
	return out, nil
}

func readProposal(r *gitstore.Repo, ref, author, id string, h gitstore.Hash) Proposal {
	p := Proposal{Ref: ref, Author: author, ID: id, Commit: h}
	c, err := r.ReadCommit(h)
	if err != nil {
		p.Err = err
		return p
	}
	p.Proposer = c.Author
	p.Date = c.AuthorTime.UTC()
	if len(c.Parents) != 0 {
		p.Err = fmt.Errorf("%w: the proposal's commit has parents; a proposal is one commit", memerr.ErrInvalid)
		return p
	}
	if !gitstore.IsIdentity(p.Proposer) || len(p.Proposer) > maxFieldBytes {
		p.Err = fmt.Errorf("%w: the proposal's author is not \"Name <email>\"", memerr.ErrInvalid)
		return p
	}
	if err := gitstore.CheckSecrets(p.Proposer); err != nil {
		p.Err = fmt.Errorf("the proposal's author: %w", err)
		return p
	}
	rd, err := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).ReadAt(h)
	if err != nil {
		p.Err = err
		return p
	}
	blobs, err := rd.BlobHashes()
	if err != nil {
		p.Err = err
		return p
	}
	if _, ok := blobs[id]; !ok || len(blobs) != 1 {
		p.Err = fmt.Errorf("%w: a proposal holds its one memory, %s; this one holds %d documents", memerr.ErrInvalid, gitstore.Clip(id, gitstore.MinShownPrefix), len(blobs))
		return p
	}
	m, err := rd.Get(id)
	if err != nil {
		p.Err = err
		return p
	}
	if err := checkProposal(m, p.Date); err != nil {
		p.Err = err
		return p
	}
	p.Memory = m
	return p
}

// FindProposal returns the proposal of the memory with the id or unique
// prefix among ps.
func FindProposal(ps []Proposal, prefix string) (Proposal, error) {
	norm, err := gitstore.NormalizePrefix(prefix)
	if err != nil {
		return Proposal{}, err
	}
	var hits []Proposal
	for _, p := range ps {
		if strings.HasPrefix(p.ID, norm) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 0:
		return Proposal{}, fmt.Errorf("%w: no open proposal of a memory with id %q", memerr.ErrNoProposal, gitstore.Clip(prefix, 40))
	case 1:
		return hits[0], nil
	}
	amb := &gitstore.AmbiguousError{Prefix: prefix}
	for _, p := range hits {
		m := gitstore.Memory{ID: p.ID, Type: gitstore.TypeInvalid, Text: gitstore.InvalidText}
		if p.Memory != nil {
			m = *p.Memory
		}
		m.Author = p.Proposer
		amb.Candidates = append(amb.Candidates, m)
	}
	return Proposal{}, amb
}

// Accepted says what acceptProposal wrote.
type Accepted struct {
	Memory *gitstore.Memory
	// Superseded are the memories of the store the proposal replaced.
	Superseded []string
	commit     gitstore.Hash
}

// acceptProposal writes a proposal's memory to r's refs/memory/main as one
// commit whose author is the proposer and committer the reviewer ("Name
// <email>"; "": r's identity), with the proposal named in its trailers. A
// proposal that supersedes a current memory of the store closes it, as git
// mem add --supersedes does; a supersedes link to a memory the store lacks
// (the proposer's project's) is dropped.
func acceptProposal(ctx context.Context, r *gitstore.Repo, w gitstore.Writer, p Proposal, reviewer string) (*Accepted, error) {
	if p.Err != nil {
		return nil, fmt.Errorf("the proposal %s cannot be accepted: %w", gitstore.Clip(p.ID, gitstore.MinShownPrefix), p.Err)
	}
	if p.Memory == nil {
		return nil, fmt.Errorf("%w: the proposal %s holds no memory", memerr.ErrInvalid, gitstore.Clip(p.ID, gitstore.MinShownPrefix))
	}
	if !gitstore.IsIdentity(p.Proposer) {
		return nil, fmt.Errorf("%w: the proposal's author is not \"Name <email>\"", memerr.ErrInvalid)
	}
	if err := checkReviewer(reviewer); err != nil {
		return nil, err
	}
	st := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject)
	res := &Accepted{}
	commit, err := st.Update(ctx, w, func(tx *gitstore.Tx) error {
		m := *p.Memory
		m.InScope("")
		res.Superseded = nil
		if err := tx.CommitAs(p.Proposer, reviewer); err != nil {
			return err
		}
		op := gitstore.OpAdd
		ids := []string{m.ID}
		if m.Supersedes != "" {
			old, err := tx.Get(m.Supersedes)
			switch {
			case errors.Is(err, memerr.ErrNotFound):
				m.Supersedes = ""
			case err != nil:
				return err
			case old.SupersededBy != "" && old.SupersededBy != m.ID:
				return fmt.Errorf("%w: %s, which the proposal replaces, was already superseded by %s", memerr.ErrRetired, gitstore.Clip(old.ID, gitstore.MinShownPrefix), gitstore.Clip(old.SupersededBy, gitstore.MinShownPrefix))
			case old.SupersededBy == "":
				now := tx.Now()
				end := now
				old.ValidTo = &end
				old.SupersededBy = m.ID
				old.Updated = now
				old.Events = append(old.Events, gitstore.Event{Op: gitstore.EventSupersede, At: now, Agent: w.Agent, Author: p.Proposer, Reason: "superseded by " + m.ID})
				tx.Put(old)
				op = opSupersede
				ids = append(ids, old.ID)
				res.Superseded = append(res.Superseded, old.ID)
			}
		}
		tx.Describe(op, m.Type+": "+m.Text, ids...)
		tx.Trailer(trailerProposedBy, p.Author)
		tx.Trailer(trailerProposal, p.Commit.String())
		tx.Put(&m)
		res.Memory = &m
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.commit = commit
	return res, nil
}

// undoAccept moves r's refs/memory/main back from what acceptProposal
// wrote to prev, when nothing moved it since (a push that failed after
// merging others' memory leaves it as it is). It reports whether it moved
// it.
func undoAccept(r *gitstore.Repo, acc *Accepted, prev gitstore.Hash) (bool, error) {
	if acc == nil || acc.commit.IsZero() {
		return false, nil
	}
	return gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).SetTip(acc.commit, prev)
}

// closeProposal deletes the proposal's ref on the remote, only while it
// still points at the proposal reviewed (a proposer who replaced it in
// between keeps the new one), and its fetched copy in r.
func closeProposal(ctx context.Context, r *gitstore.Repo, rem *gitstore.Remote, p Proposal, t gitstore.TransportOptions) error {
	err := r.PushRef(ctx, rem, p.Ref, p.Commit, gitstore.Hash{}, t)
	var moved *memerr.BusyError
	if errors.As(err, &moved) {
		return fmt.Errorf("%w: the proposal %s changed on %s while it was reviewed; run git mem review again", memerr.ErrRemote, gitstore.Clip(p.ID, gitstore.MinShownPrefix), rem.Display)
	}
	if err != nil {
		return err
	}
	local := gitstore.NewStore(r, proposalsTracking(rem)+p.Author+"/"+p.ID, gitstore.ScopeProject)
	if cur, err := local.Tip(); err == nil && !cur.IsZero() {
		_, _ = local.SetTip(cur, gitstore.Hash{})
	}
	return nil
}

// RejectedProposal is one rejected proposal, as recorded on refRejected.
type RejectedProposal struct {
	ID     string
	Author string
	// Proposal is the rejected proposal's commit.
	Proposal gitstore.Hash
	Reason   string
	// Reviewer is who rejected it ("Name <email>"), Date when.
	Reviewer string
	Date     time.Time
	Commit   gitstore.Hash
}

// recordRejection appends the rejection of p by reviewer ("Name <email>";
// "": r's identity), with reason, to the remote's refRejected (fetched by
// fetchProposalRefs), and pushes it; when another review landed first it
// is written again on top of it.
func recordRejection(ctx context.Context, r *gitstore.Repo, rem *gitstore.Remote, p Proposal, reviewer, reason string, t gitstore.TransportOptions) (gitstore.Hash, error) {
	if err := gitstore.CheckReason(reason); err != nil {
		return gitstore.Hash{}, err
	}
	if err := checkReviewer(reviewer); err != nil {
		return gitstore.Hash{}, err
	}
	if !gitstore.ValidID(p.ID) || checkAuthorSlug(p.Author) != nil {
		return gitstore.Hash{}, fmt.Errorf("%w: not a proposal", memerr.ErrInvalid)
	}
	reason = strings.TrimSpace(reason)
	msg := "mem: " + opReject + " " + gitstore.Clip(p.ID, gitstore.MinShownPrefix) + " proposed by " + p.Author + "\n\n" +
		trailerID + ": " + p.ID + "\n" + trailerOp + ": " + opReject + "\n" +
		trailerProposedBy + ": " + p.Author + "\n" + trailerProposal + ": " + p.Commit.String() + "\n" +
		trailerReason + ": " + reason + "\n"
	tracking := rejectedTracking(r, rem)
	for attempt := 0; ; attempt++ {
		tip, err := tracking.Tip()
		if err != nil {
			return gitstore.Hash{}, err
		}
		var parents []gitstore.Hash
		if !tip.IsZero() {
			parents = []gitstore.Hash{tip}
		}
		commit, err := r.WriteCommit(parents, nil, msg, r.Now().UTC().Truncate(time.Second), reviewer, reviewer)
		if err != nil {
			return gitstore.Hash{}, err
		}
		err = r.PushRef(ctx, rem, refRejected, tip, commit, t)
		if err == nil {
			if _, uerr := tracking.SetTip(tip, commit); uerr != nil {
				return commit, uerr
			}
			return commit, nil
		}
		var moved *memerr.BusyError
		if !errors.As(err, &moved) || attempt >= 20 {
			if moved != nil {
				err = &memerr.BusyError{Op: memerr.BusyPush, Remote: rem.Display, Reason: "the record of rejections kept moving"}
			}
			return gitstore.Hash{}, err
		}
		select {
		case <-time.After(rejectBackoff(attempt)):
		case <-ctx.Done():
			return gitstore.Hash{}, ctx.Err()
		}
		if err := fetchProposalRefs(ctx, r, rem, t); err != nil {
			return gitstore.Hash{}, err
		}
	}
}

// rejectBackoff is the wait before retry attempt (0-based) after another
// review moved the record of rejections first: full jitter over a window
// of 1, 2, 4 then 8 slots of 50ms, as gitstore's push backs off.
func rejectBackoff(attempt int) time.Duration {
	window := 50 * time.Millisecond << min(attempt, 3)
	return time.Duration(rand.Int64N(int64(window)))
}

// maxRejections bounds what rejections reads of the record.
const maxRejections = 1000

// rejections returns the remote's rejected proposals as last fetched
// (fetchProposalRefs), newest first. The record is others' input: an entry
// without a valid id and author is left out; the reason is returned as
// recorded (a surface escapes it).
func rejections(r *gitstore.Repo, rem *gitstore.Remote) ([]RejectedProposal, error) {
	h, err := rejectedTracking(r, rem).Tip()
	if err != nil || h.IsZero() {
		return nil, err
	}
	var out []RejectedProposal
	for n := 0; !h.IsZero() && n < maxRejections; n++ {
		c, err := r.ReadCommit(h)
		if err != nil {
			return out, err
		}
		if rj, ok := parseRejection(c); ok {
			out = append(out, rj)
		}
		h = gitstore.Hash{}
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return out, nil
}

func parseRejection(c gitstore.Change) (RejectedProposal, bool) {
	rj := RejectedProposal{Commit: c.Commit, Reviewer: c.Committer, Date: c.Time.UTC()}
	op := ""
	for _, line := range strings.Split(c.Message, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case trailerID:
			rj.ID = v
		case trailerOp:
			op = v
		case trailerProposedBy:
			rj.Author = v
		case trailerProposal:
			rj.Proposal, _ = gitstore.HashOf(v)
		case trailerReason:
			rj.Reason = gitstore.Clip(v, maxReasonBytes)
		}
	}
	if op != opReject || !gitstore.ValidID(rj.ID) || checkAuthorSlug(rj.Author) != nil {
		return RejectedProposal{}, false
	}
	return rj, true
}
