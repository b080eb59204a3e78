package linkstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Proposals and review go through the local copy: its repository writes
// the objects and runs git against the org store, as its refresh and push
// do. See review.go for the refs.

// ensure gives the copy a repository, fetching the org store once when it
// was never fetched (a link made before its store was reachable).
func (c *Copy) ensure(ctx context.Context, o RefreshOptions) error {
	if c.Repo != nil {
		return nil
	}
	o.Wait, o.Interval = true, 0
	_, err := c.Refresh(ctx, o)
	if err == nil && c.Repo == nil {
		err = fmt.Errorf("%w: the local copy of %s could not be made", memerr.ErrEmptyStore, gitstore.RedactURL(c.URL))
	}
	return err
}

// Propose pushes m to the org store as a proposal by proposer ("Name
// <email>", the project's identity), and returns the proposal as sent;
// replaced says whether it replaced the proposer's earlier one. It needs
// no right to write the org store's refs/memory/main, only its proposals;
// a host that refuses says so in the error, and nothing of the project
// changes either way.
func (c *Copy) Propose(ctx context.Context, m *gitstore.Memory, proposer string, o RefreshOptions) (p Proposal, replaced bool, err error) {
	if err := checkProposal(m, now(o)); err != nil {
		return p, false, err
	}
	if err := c.ensure(ctx, o); err != nil {
		return p, false, err
	}
	rem, err := c.remote(ctx)
	if err != nil {
		return p, false, err
	}
	return propose(ctx, c.Repo, rem, m, proposer, o.TransportOptions)
}

// Review is the org store's proposals and rejections as just fetched.
type Review struct {
	Proposals []Proposal
	Rejected  []RejectedProposal
	// Store is the copy's refs/memory/main as refreshed: what a proposal
	// would join.
	Store *gitstore.Store
}

// Review fetches the org store's main ref (a refresh) and its proposals and
// record of rejections, and returns them.
func (c *Copy) Review(ctx context.Context, o RefreshOptions) (*Review, error) {
	o.Wait, o.Interval = true, 0
	if _, err := c.Refresh(ctx, o); err != nil {
		return nil, err
	}
	rem, err := c.remote(ctx)
	if err != nil {
		return nil, err
	}
	ps, rj, err := fetchProposals(ctx, c.Repo, rem, o.TransportOptions)
	if err != nil {
		return nil, err
	}
	return &Review{Proposals: ps, Rejected: rj, Store: gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject)}, nil
}

// AcceptResult says what Accept did.
type AcceptResult struct {
	Proposal Proposal
	*Accepted
	Push *gitstore.PushResult
}

// ErrNotAccepted: the org store refused (or could not be reached for) the
// push of an accepted proposal; the proposal stays open.
var ErrNotAccepted = errors.New("the accepted proposal could not be pushed")

// Accept writes the proposal of the memory id (or unique prefix) to the org
// store: refreshed first, written to the copy's refs/memory/main (author
// the proposer, committer reviewer, "Name <email>" of the reviewing
// project's identity: the copy's own configuration is not the user's
// project's), pushed as git mem sync pushes it, and then the proposal's
// ref is deleted on the org store. When the push fails the copy is put
// back as it was, so that no one reads as the org's a memory the org
// store does not hold, and the proposal stays open: the error wraps
// ErrNotAccepted and the host's message.
func (c *Copy) Accept(ctx context.Context, w gitstore.Writer, reviewer, id string, o RefreshOptions) (*AcceptResult, error) {
	rv, err := c.Review(ctx, o)
	if err != nil {
		return nil, err
	}
	p, err := FindProposal(rv.Proposals, id)
	if err != nil {
		return nil, err
	}
	prev, err := rv.Store.Tip()
	if err != nil {
		return nil, err
	}
	acc, err := acceptProposal(ctx, c.Repo, w, p, reviewer)
	if err != nil {
		return nil, err
	}
	res := &AcceptResult{Proposal: p, Accepted: acc}
	if res.Push, err = c.Push(ctx, w, o.TransportOptions); err != nil {
		if _, uerr := undoAccept(c.Repo, acc, prev); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return res, fmt.Errorf("%w: %w", ErrNotAccepted, err)
	}
	rem, err := c.remote(ctx)
	if err != nil {
		return res, err
	}
	return res, closeProposal(ctx, c.Repo, rem, p, o.TransportOptions)
}

// Reject records why reviewer ("Name <email>") rejects the proposal of the
// memory id (or unique prefix) on the org store's refs/memory/reviews/rejected, then deletes
// the proposal's ref there.
func (c *Copy) Reject(ctx context.Context, reviewer, id, reason string, o RefreshOptions) (Proposal, error) {
	if err := gitstore.CheckReason(reason); err != nil {
		return Proposal{}, err
	}
	if err := c.ensure(ctx, o); err != nil {
		return Proposal{}, err
	}
	rem, err := c.remote(ctx)
	if err != nil {
		return Proposal{}, err
	}
	ps, _, err := fetchProposals(ctx, c.Repo, rem, o.TransportOptions)
	if err != nil {
		return Proposal{}, err
	}
	p, err := FindProposal(ps, id)
	if err != nil {
		return Proposal{}, err
	}
	if _, err := recordRejection(ctx, c.Repo, rem, p, reviewer, reason, o.TransportOptions); err != nil {
		return p, err
	}
	return p, closeProposal(ctx, c.Repo, rem, p, o.TransportOptions)
}

func now(o RefreshOptions) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
