package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

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
//     how a review closes it.
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
	// (refs/memory/proposals/<author>/<id>): a push there is checked like
	// the rest, but deleting one is how a review closes it.
	proposalsPrefix = "refs/memory/proposals/"
	// refRejected records the rejected proposals.
	refRejected = reviewsPrefix + "rejected"

	reviewsPrefix = "refs/memory/reviews/"
)

// Memory-Op values of the commits of proposals and rejections, and the
// trailers that name a proposal.
const (
	opPropose = "propose"
	opReject  = "reject"

	trailerProposedBy = "Proposed-By"
	trailerProposal   = "Proposal"
	trailerReason     = "Reason"
)

// maxSlugBytes bounds the <author> of a proposal's ref.
const maxSlugBytes = 64

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
	if !validID(id) {
		return "", "", &memerr.InvalidInputError{Field: "proposal", Value: name, Reason: fmt.Sprintf("%s does not end in a memory id", quoteShort(name))}
	}
	return author, id, nil
}

// CheckProposal refuses a memory that may not be proposed: an invalid
// document, a retired one, or one that holds a secret in any field that
// reaches the other store (the secret rules of every write, with no
// exception for a harmless example: the text goes to other people's
// repositories).
func CheckProposal(m *Memory, now time.Time) error {
	if m == nil || !validID(m.ID) {
		return fmt.Errorf("%w: not a memory", memerr.ErrInvalid)
	}
	if m.Type == TypeHandoff || m.Type == TypeSession {
		return fmt.Errorf("%w: a %s belongs to its repository's sessions; propose facts, decisions, gotchas, conventions, commands or preferences", memerr.ErrInvalid, m.Type)
	}
	if m.SupersededBy != "" || m.Retired(now) {
		return fmt.Errorf("%w: %s is no longer current; propose the memory that replaced it", memerr.ErrRetired, Clip(m.ID, MinShownPrefix))
	}
	return m.Check()
}

// CheckReason refuses a rejection's reason that is empty, too long, not
// one line of text, or that holds a secret: it is recorded in a history
// everyone fetches.
func CheckReason(reason string) error {
	r := strings.TrimSpace(reason)
	bad := func(why string) error {
		return &memerr.InvalidInputError{Field: "reason", Value: Clip(reason, 60), Reason: why}
	}
	switch {
	case r == "":
		return bad("give the reason for the rejection with --reason")
	case len(r) > maxReasonBytes:
		return bad(fmt.Sprintf("the reason is %d bytes, over the %d-byte maximum", len(r), maxReasonBytes))
	}
	if err := checkText("the reason", r, false); err != nil {
		return err
	}
	if strings.ContainsAny(r, "\n\t") {
		return bad("the reason is one line of text")
	}
	return CheckSecrets(r)
}

// checkReviewer refuses a reviewer that is not "Name <email>" ("": this
// repository's identity).
func checkReviewer(s string) error {
	if s == "" {
		return nil
	}
	if _, ok := identOf(s); !ok {
		return &memerr.InvalidInputError{Field: "reviewer", Value: s, Reason: "the reviewer's identity is not \"Name <email>\"; set git config user.name and user.email"}
	}
	return nil
}

// Propose writes m as a proposal by proposer ("Name <email>") in this
// repository (its objects, no ref) and pushes it to the remote's
// refs/memory/proposals/<author>/<id>, replacing only the proposer's own
// earlier proposal of the same memory, and returns the proposal as sent;
// replaced says whether it replaced one. The memory's anchor is left out.
// When the remote refuses, the error holds the host's message.
func (r *Repo) Propose(ctx context.Context, rem *Remote, m *Memory, proposer string, t TransportOptions) (p Proposal, replaced bool, err error) {
	if err := CheckProposal(m, r.Now()); err != nil {
		return Proposal{}, false, err
	}
	if _, ok := identOf(proposer); !ok {
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
	msg := "mem: " + opPropose + " " + Clip(m.ID, MinShownPrefix) + " " + Summary(m.Type+": "+m.Text, 72) + "\n\n" +
		trailerID + ": " + m.ID + "\n" + trailerOp + ": " + opPropose + "\n"
	now := r.Now().UTC().Truncate(time.Second)
	commit, err := r.WriteCommit(nil, []*Memory{&sent}, msg, now, proposer, proposer)
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
func (rem *Remote) proposalsTracking() string {
	return "refs/memory/remotes/" + rem.Slug + "/proposals/"
}

// reviewsTracking is where a remote's record of reviews is fetched to.
func (rem *Remote) reviewsTracking() string {
	return "refs/memory/remotes/" + rem.Slug + "/reviews/"
}

// fetchProposals brings the remote's proposals (refs/memory/proposals/*)
// and its record of rejections (refs/memory/reviews/*) under
// refs/memory/remotes/<remote>/, removing those the remote no longer has.
func (r *Repo) fetchProposals(ctx context.Context, rem *Remote, t TransportOptions) error {
	err := r.FetchRefs(ctx, rem, t,
		"+"+proposalsPrefix+"*:"+rem.proposalsTracking()+"*",
		"+"+reviewsPrefix+"*:"+rem.reviewsTracking()+"*")
	if err != nil {
		return fmt.Errorf("%w: fetching the proposals of %s failed (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	return nil
}

// FetchProposals brings the remote's proposals and its record of
// rejections (fetchProposals) and returns them: the proposals oldest
// first, each checked as a write is (CheckProposal; one that fails says
// why in its Err), and the rejected ones newest first.
func (r *Repo) FetchProposals(ctx context.Context, rem *Remote, t TransportOptions) ([]Proposal, []RejectedProposal, error) {
	if err := r.fetchProposals(ctx, rem, t); err != nil {
		return nil, nil, err
	}
	ps, err := r.proposals(rem)
	if err != nil {
		return nil, nil, err
	}
	rj, err := r.rejections(rem)
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
	Commit Hash
	// Proposer is the commit's author, "Name <email>"; Date its time.
	Proposer string
	Date     time.Time
	// Memory is the proposed memory; nil when Err says why it cannot be
	// read or accepted.
	Memory *Memory
	Err    error
}

// proposals returns the remote's proposals as last fetched
// (fetchProposals), oldest first. Everything in them is others' input:
// each is checked as a write is (CheckProposal), and one that fails says
// why in Err. Refs whose names are no proposal's are left out.
func (r *Repo) proposals(rem *Remote) ([]Proposal, error) {
	refs, err := r.ListRefs(rem.proposalsTracking())
	if err != nil {
		return nil, err
	}
	var out []Proposal
	for name, h := range refs {
		rest := strings.TrimPrefix(name, rem.proposalsTracking())
		author, id, err := parseProposalName(rest)
		if err != nil {
			continue
		}
		out = append(out, r.readProposal(proposalRef(author, id), author, id, h))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.Before(out[j].Date)
		}
		return out[i].Ref < out[j].Ref
	})
	return out, nil
}

func (r *Repo) readProposal(ref, author, id string, h Hash) Proposal {
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
	if _, ok := identOf(p.Proposer); !ok || len(p.Proposer) > maxFieldBytes {
		p.Err = fmt.Errorf("%w: the proposal's author is not \"Name <email>\"", memerr.ErrInvalid)
		return p
	}
	if err := CheckSecrets(p.Proposer); err != nil {
		p.Err = fmt.Errorf("the proposal's author: %w", err)
		return p
	}
	rd, err := NewStore(r, RefMain, ScopeProject).ReadAt(h)
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
		p.Err = fmt.Errorf("%w: a proposal holds its one memory, %s; this one holds %d documents", memerr.ErrInvalid, Clip(id, MinShownPrefix), len(blobs))
		return p
	}
	m, err := rd.Get(id)
	if err != nil {
		p.Err = err
		return p
	}
	if err := CheckProposal(m, p.Date); err != nil {
		p.Err = err
		return p
	}
	p.Memory = m
	return p
}

// FindProposal returns the proposal of the memory with the id or unique
// prefix among ps.
func FindProposal(ps []Proposal, prefix string) (Proposal, error) {
	norm, err := normalizePrefix(prefix)
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
		return Proposal{}, fmt.Errorf("%w: no open proposal of a memory with id %q", memerr.ErrNoProposal, Clip(prefix, 40))
	case 1:
		return hits[0], nil
	}
	amb := &AmbiguousError{Prefix: prefix}
	for _, p := range hits {
		m := Memory{ID: p.ID, Type: TypeInvalid, Text: InvalidText}
		if p.Memory != nil {
			m = *p.Memory
		}
		m.Author = p.Proposer
		amb.Candidates = append(amb.Candidates, m)
	}
	return Proposal{}, amb
}

// Accepted says what AcceptProposal wrote.
type Accepted struct {
	Memory *Memory
	// Superseded are the memories of the store the proposal replaced.
	Superseded []string
	commit     Hash
}

// AcceptProposal writes a proposal's memory to this repository's
// refs/memory/main as one commit whose author is the proposer and
// committer the reviewer ("Name <email>"; "": this repository's
// identity), with the proposal
// named in its trailers. A proposal that supersedes a current memory of
// the store closes it, as git mem add --supersedes does; a supersedes link
// to a memory the store lacks (the proposer's project's) is dropped.
func (r *Repo) AcceptProposal(ctx context.Context, w Writer, p Proposal, reviewer string) (*Accepted, error) {
	if p.Err != nil {
		return nil, fmt.Errorf("the proposal %s cannot be accepted: %w", Clip(p.ID, MinShownPrefix), p.Err)
	}
	if p.Memory == nil {
		return nil, fmt.Errorf("%w: the proposal %s holds no memory", memerr.ErrInvalid, Clip(p.ID, MinShownPrefix))
	}
	if _, ok := identOf(p.Proposer); !ok {
		return nil, fmt.Errorf("%w: the proposal's author is not \"Name <email>\"", memerr.ErrInvalid)
	}
	if err := checkReviewer(reviewer); err != nil {
		return nil, err
	}
	st := NewStore(r, RefMain, ScopeProject)
	res := &Accepted{}
	commit, err := st.Update(ctx, w, func(tx *Tx) error {
		m := *p.Memory
		m.InScope("")
		res.Superseded = nil
		if err := tx.CommitAs(p.Proposer, reviewer); err != nil {
			return err
		}
		op := OpAdd
		ids := []string{m.ID}
		if m.Supersedes != "" {
			old, err := tx.Get(m.Supersedes)
			switch {
			case errors.Is(err, memerr.ErrNotFound):
				m.Supersedes = ""
			case err != nil:
				return err
			case old.SupersededBy != "" && old.SupersededBy != m.ID:
				return fmt.Errorf("%w: %s, which the proposal replaces, was already superseded by %s", memerr.ErrRetired, Clip(old.ID, MinShownPrefix), Clip(old.SupersededBy, MinShownPrefix))
			case old.SupersededBy == "":
				now := tx.Now()
				end := now
				old.ValidTo = &end
				old.SupersededBy = m.ID
				old.Updated = now
				old.Events = append(old.Events, Event{Op: EventSupersede, At: now, Agent: w.Agent, Author: p.Proposer, Reason: "superseded by " + m.ID})
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

// UndoAccept moves refs/memory/main back from what AcceptProposal wrote to
// prev, when nothing moved it since (a push that failed after merging
// others' memory leaves it as it is). It reports whether it moved it.
func (r *Repo) UndoAccept(acc *Accepted, prev Hash) (bool, error) {
	if acc == nil || acc.commit.IsZero() {
		return false, nil
	}
	return NewStore(r, RefMain, ScopeProject).SetTip(prev, acc.commit)
}

// CloseProposal deletes the proposal's ref on the remote, only while it
// still points at the proposal reviewed (a proposer who replaced it in
// between keeps the new one), and its fetched copy here.
func (r *Repo) CloseProposal(ctx context.Context, rem *Remote, p Proposal, t TransportOptions) error {
	err := r.PushRef(ctx, rem, p.Ref, p.Commit, zeroHash, t)
	var moved *memerr.BusyError
	if errors.As(err, &moved) {
		return fmt.Errorf("%w: the proposal %s changed on %s while it was reviewed; run git mem review again", memerr.ErrRemote, Clip(p.ID, MinShownPrefix), rem.Display)
	}
	if err != nil {
		return err
	}
	local := NewStore(r, rem.proposalsTracking()+p.Author+"/"+p.ID, ScopeProject)
	if cur, err := local.Tip(); err == nil && !cur.IsZero() {
		_, _ = local.SetTip(zeroHash, cur)
	}
	return nil
}

// RejectedProposal is one rejected proposal, as recorded on refRejected.
type RejectedProposal struct {
	ID     string
	Author string
	// Proposal is the rejected proposal's commit.
	Proposal Hash
	Reason   string
	// Reviewer is who rejected it ("Name <email>"), Date when.
	Reviewer string
	Date     time.Time
	Commit   Hash
}

// RecordRejection appends the rejection of p by reviewer ("Name <email>";
// "": this repository's identity), with reason, to the remote's
// refRejected (fetched by fetchProposals), and pushes it; when another
// review landed first it is written again on top of it.
func (r *Repo) RecordRejection(ctx context.Context, rem *Remote, p Proposal, reviewer, reason string, t TransportOptions) (Hash, error) {
	if err := CheckReason(reason); err != nil {
		return zeroHash, err
	}
	if err := checkReviewer(reviewer); err != nil {
		return zeroHash, err
	}
	if !validID(p.ID) || checkAuthorSlug(p.Author) != nil {
		return zeroHash, fmt.Errorf("%w: not a proposal", memerr.ErrInvalid)
	}
	reason = strings.TrimSpace(reason)
	msg := "mem: " + opReject + " " + Clip(p.ID, MinShownPrefix) + " proposed by " + p.Author + "\n\n" +
		trailerID + ": " + p.ID + "\n" + trailerOp + ": " + opReject + "\n" +
		trailerProposedBy + ": " + p.Author + "\n" + trailerProposal + ": " + p.Commit.String() + "\n" +
		trailerReason + ": " + reason + "\n"
	tracking := NewStore(r, rem.reviewsTracking()+strings.TrimPrefix(refRejected, reviewsPrefix), ScopeProject)
	for attempt := 0; ; attempt++ {
		tip, err := tracking.Tip()
		if err != nil {
			return zeroHash, err
		}
		var parents []Hash
		if !tip.IsZero() {
			parents = []Hash{tip}
		}
		commit, err := r.WriteCommit(parents, nil, msg, r.Now().UTC().Truncate(time.Second), reviewer, reviewer)
		if err != nil {
			return zeroHash, err
		}
		err = r.PushRef(ctx, rem, refRejected, tip, commit, t)
		if err == nil {
			if _, uerr := tracking.SetTip(commit, tip); uerr != nil {
				return commit, uerr
			}
			return commit, nil
		}
		var moved *memerr.BusyError
		if !errors.As(err, &moved) || attempt >= 20 {
			if moved != nil {
				err = &memerr.BusyError{Op: memerr.BusyPush, Remote: rem.Display, Reason: "the record of rejections kept moving"}
			}
			return zeroHash, err
		}
		if err := sleepCtx(ctx, pushBackoff(attempt, 50*time.Millisecond)); err != nil {
			return zeroHash, err
		}
		if err := r.fetchProposals(ctx, rem, t); err != nil {
			return zeroHash, err
		}
	}
}

// maxRejections bounds what Rejections reads of the record.
const maxRejections = 1000

// rejections returns the remote's rejected proposals as last fetched
// (fetchProposals), newest first. The record is others' input: an entry
// without a valid id and author is left out; the reason is returned as
// recorded (a surface escapes it).
func (r *Repo) rejections(rem *Remote) ([]RejectedProposal, error) {
	h, err := NewStore(r, rem.reviewsTracking()+strings.TrimPrefix(refRejected, reviewsPrefix), ScopeProject).Tip()
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
		h = zeroHash
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return out, nil
}

func parseRejection(c Change) (RejectedProposal, bool) {
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
			rj.Proposal, _ = parseHash(v)
		case trailerReason:
			rj.Reason = Clip(v, maxReasonBytes)
		}
	}
	if op != opReject || !validID(rj.ID) || checkAuthorSlug(rj.Author) != nil {
		return RejectedProposal{}, false
	}
	return rj, true
}
