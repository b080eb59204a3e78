package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/memview"
)

type reviewOptions struct {
	name             string
	accept, reject   string
	reason           string
	rejected, asJSON bool
	agent            string
}

// proposalJSON is the --json shape of a proposal.
type proposalJSON struct {
	ID       string `json:"id"`
	ShortID  string `json:"short_id"`
	Author   string `json:"author"`
	Proposer string `json:"proposer"`
	Date     string `json:"date"`
	Ref      string `json:"ref"`
	Commit   string `json:"commit"`
	// Memory is the proposed memory; absent when Error says why it cannot
	// be accepted.
	Memory *memview.View `json:"memory,omitempty"`
	Error  string        `json:"error,omitempty"`
	// Revises is the store's memory of the same id, which accepting
	// replaces with the proposed version; Supersedes are the store's
	// memories the proposal replaces, Alike those its duplicate check finds
	// alike.
	Revises    *memview.View  `json:"revises,omitempty"`
	Supersedes []memview.View `json:"supersedes"`
	Alike      []memview.View `json:"alike"`
}

// rejectionJSON is the --json shape of a rejected proposal.
type rejectionJSON struct {
	ID       string `json:"id"`
	Author   string `json:"author"`
	Reason   string `json:"reason"`
	Reviewer string `json:"reviewer"`
	Date     string `json:"date"`
	Proposal string `json:"proposal"`
	Commit   string `json:"commit"`
}

func newReviewCmd(env *Env) *cobra.Command {
	o := &reviewOptions{}
	c := &cobra.Command{
		Use:   "review NAME [--accept ID | --reject ID --reason R | --rejected]",
		Short: "List, accept or reject the memories proposed to a linked store",
		Long: `Review the proposals made to the linked store NAME (git mem propose): each
with its author, text, date, and the store's memories it would replace (its
supersedes, and those the duplicate check finds alike).

--accept ID writes the proposal to the store's memory as a commit whose
author is the proposer and committer you, pushes it as git mem sync does,
and deletes the proposal. --reject ID --reason R records the reason on the
store's refs/memory/reviews/rejected and deletes the proposal; --rejected
lists what was rejected and why. Accepting needs the right to push the
store's refs/memory/main: a team that protects that ref on its host makes
every write go through review.`,
		Example: `  git mem review acme
  git mem review acme --accept 3f2a9c
  git mem review acme --reject 3f2a9c --reason "only true for the billing service"`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("give the NAME of the linked store to review (git mem link --list shows them)")
			}
			n := 0
			for _, set := range []bool{o.accept != "", o.reject != "", o.rejected} {
				if set {
					n++
				}
			}
			switch {
			case n > 1:
				return usagef("give one of --accept, --reject and --rejected")
			case o.reject != "" && o.reason == "":
				return usagef("say why with --reason, e.g. --reason \"only true for the billing service\"")
			case o.reason != "" && o.reject == "":
				return usagef("--reason goes with --reject ID")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			if err := linkstore.CheckName(o.name); err != nil {
				return err
			}
			if o.reject != "" {
				if err := gitstore.CheckReason(o.reason); err != nil {
					return err
				}
			}
			return runReview(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.accept, "accept", "", "accept the proposal of the memory `ID`")
	f.StringVar(&o.reject, "reject", "", "reject the proposal of the memory `ID` (with --reason)")
	f.StringVar(&o.reason, "reason", "", "why the proposal is rejected (recorded, one line)")
	f.BoolVar(&o.rejected, "rejected", false, "list the rejected proposals and why")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	f.StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	return c
}

func runReview(ctx context.Context, env *Env, o *reviewOptions) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	l, err := linkstore.Find(set.Repo, o.name)
	if err != nil {
		return err
	}
	c, err := linkstore.CopyOf(l.URL)
	if err != nil {
		return err
	}
	ro := linkstore.RefreshOptions{TransportOptions: env.transport(), Now: env.Now, Writer: env.writer(set, o.agent)}
	switch {
	case o.accept != "":
		return runAccept(ctx, env, o, c, set.Repo.Author(), ro)
	case o.reject != "":
		p, err := c.Reject(ctx, set.Repo.Author(), o.reject, o.reason, ro)
		if err != nil {
			return fmt.Errorf("rejecting %s: %w%s", o.reject, err, listHint(err, o.name))
		}
		fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("rejected %s proposed by %s; the reason is recorded (git mem review %s --rejected)",
			gitstore.Clip(p.ID, gitstore.MinShownPrefix), p.Author, o.name), false))
		return nil
	}
	rv, err := c.Review(ctx, ro)
	if err != nil {
		return fmt.Errorf("reviewing %s: %w", o.name, err)
	}
	if o.rejected {
		return writeRejections(env, o, rv.Rejected)
	}
	return writeProposals(env, o, rv)
}

func runAccept(ctx context.Context, env *Env, o *reviewOptions, c *linkstore.Copy, reviewer string, ro linkstore.RefreshOptions) error {
	res, err := c.Accept(ctx, ro.Writer, reviewer, o.accept, ro)
	if errors.Is(err, linkstore.ErrNotAccepted) {
		return fmt.Errorf("accepting %s: %w; nothing was written to %s and the proposal stays open", o.accept, err, o.name)
	}
	if err != nil {
		return fmt.Errorf("accepting %s: %w%s", o.accept, err, listHint(err, o.name))
	}
	msg := fmt.Sprintf("accepted %s proposed by %s into %s", gitstore.Clip(res.Memory.ID, gitstore.MinShownPrefix), res.Proposal.Proposer, o.name)
	for _, id := range res.Superseded {
		msg += fmt.Sprintf("; it supersedes %s", gitstore.Clip(id, gitstore.MinShownPrefix))
	}
	fmt.Fprintln(env.Out, terminalSafe(msg, false))
	return nil
}

// listHint says where the open proposals are listed, after an error that
// found none of the id.
func listHint(err error, name string) string {
	if errors.Is(err, memerr.ErrNoProposal) {
		return "; git mem review " + name + " lists the open ones"
	}
	return ""
}

func writeProposals(env *Env, o *reviewOptions, rv *linkstore.Review) error {
	now := env.Now()
	rd, err := rv.Store.Read()
	if err != nil {
		return err
	}
	all, err := rd.All()
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(rv.Proposals))
	for _, p := range rv.Proposals {
		ids = append(ids, p.ID)
	}
	short := gitstore.ShortIDs(ids)
	out := []proposalJSON{}
	for _, p := range rv.Proposals {
		j := proposalJSON{ID: p.ID, ShortID: short[p.ID], Author: p.Author, Proposer: p.Proposer, Ref: p.Ref, Commit: p.Commit.String(),
			Supersedes: []memview.View{}, Alike: []memview.View{}}
		if !p.Date.IsZero() {
			j.Date = p.Date.Format(time.RFC3339)
		}
		if p.Err != nil {
			j.Error = p.Err.Error()
		}
		if m := p.Memory; m != nil {
			v := toJSON(m, short[p.ID], now)
			j.Memory = &v
			if cur, err := rd.Get(m.ID); err == nil {
				r := toJSON(cur, rd.ShortID(cur.ID), now)
				j.Revises = &r
			}
			if m.Supersedes != "" {
				if old, err := rd.Get(m.Supersedes); err == nil {
					j.Supersedes = append(j.Supersedes, toJSON(old, rd.ShortID(old.ID), now))
				}
			}
			for _, a := range index.Alike(all, m, now) {
				if a.ID != m.Supersedes {
					j.Alike = append(j.Alike, toJSON(a, rd.ShortID(a.ID), now))
				}
			}
		}
		out = append(out, j)
	}
	if o.asJSON {
		return writeJSON(env.Out, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(env.Out, "no proposals to %s\n", o.name)
		return nil
	}
	w := lineEscaper{env.Out}
	for i, j := range out {
		if i > 0 {
			fmt.Fprintln(env.Out)
		}
		fmt.Fprintf(w, "%s  proposed by %s (%s), %s\n", j.ShortID, j.Author, j.Proposer, firstNonEmpty(j.Date, "undated"))
		if j.Memory == nil {
			fmt.Fprintf(w, "  cannot be accepted: %s\n", j.Error)
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", j.Memory.Type, j.Memory.Text)
		if j.Revises != nil {
			fmt.Fprintf(w, "  revises the store's %s: %s\n", j.Revises.ShortID, gitstore.Summary(j.Revises.Text, 90))
		}
		for _, s := range j.Supersedes {
			fmt.Fprintf(w, "  supersedes %s: %s\n", s.ShortID, gitstore.Summary(s.Text, 90))
		}
		for _, a := range j.Alike {
			fmt.Fprintf(w, "  alike %s: %s\n", a.ShortID, gitstore.Summary(a.Text, 90))
		}
	}
	fmt.Fprintln(env.Out)
	fmt.Fprintf(w, "accept with git mem review %s --accept ID, reject with --reject ID --reason R\n", o.name)
	return nil
}

func writeRejections(env *Env, o *reviewOptions, rs []linkstore.RejectedProposal) error {
	out := []rejectionJSON{}
	for _, r := range rs {
		out = append(out, rejectionJSON{ID: r.ID, Author: r.Author, Reason: r.Reason, Reviewer: r.Reviewer,
			Date: r.Date.Format(time.RFC3339), Proposal: r.Proposal.String(), Commit: r.Commit.String()})
	}
	if o.asJSON {
		return writeJSON(env.Out, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(env.Out, "no rejected proposals in %s\n", o.name)
		return nil
	}
	w := lineEscaper{env.Out}
	for _, r := range out {
		fmt.Fprintf(w, "%s  proposed by %s, rejected by %s, %s: %s\n", gitstore.Clip(r.ID, gitstore.MinShownPrefix), r.Author, r.Reviewer, r.Date, r.Reason)
	}
	return nil
}
