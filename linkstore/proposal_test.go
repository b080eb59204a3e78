package linkstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
)

const (
	alice = "Alice <alice@example.com>"
	bob   = "Bob <bob@example.com>"
)

// linkedCopy links the org store from a new project and returns the
// project, with a memory of its own, and the local copy.
func (w *world) linkedCopy(name, text string) (*gitstore.Repo, *gitstore.Memory, *linkstore.Copy) {
	w.t.Helper()
	ctx := context.Background()
	p := w.project(name)
	require.NoError(w.t, linkstore.Record(ctx, p, linkstore.Link{Name: "acme", URL: w.org}, false))
	c := w.copyOf(w.org)
	_, err := c.Refresh(ctx, linkstore.RefreshOptions{Wait: true})
	require.NoError(w.t, err)
	m, err := gitstore.NewStore(p, gitstore.RefMain, gitstore.ScopeProject).Add(ctx, gitstore.Writer{Agent: "cli"},
		gitstore.NewMemory{Type: gitstore.TypeConvention, Text: text, Source: gitstore.SourceUser})
	require.NoError(w.t, err)
	return p, m, c
}

// orgRefs lists the org store's memory refs.
func (w *world) orgRefs() []string {
	w.t.Helper()
	out := w.git(w.org, "for-each-ref", "--format=%(refname)", "refs/memory/")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func TestProposeReviewAccept(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	old := w.orgAdd("Releases are cut on Mondays by the platform team")
	_, m, c := w.linkedCopy("web", "Releases are cut on Tuesdays by the platform team")
	m.Supersedes = old.ID // the proposer read the org memory and corrects it

	sent, replaced, err := c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Equal(t, "refs/memory/proposals/alice-example.com/"+m.ID, sent.Ref)
	require.False(t, replaced)
	require.Equal(t, []string{"refs/memory/main", sent.Ref}, w.orgRefs())

	rv, err := c.Review(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Len(t, rv.Proposals, 1)
	p := rv.Proposals[0]
	require.NoError(t, p.Err)
	require.Equal(t, sent.Commit, p.Commit, "the proposal fetched is the one sent")
	require.Equal(t, sent.Proposer, p.Proposer)
	require.Equal(t, alice, p.Proposer)
	require.Equal(t, "alice-example.com", p.Author)
	require.Equal(t, m.Text, p.Memory.Text)
	require.Nil(t, p.Memory.Anchor, "the proposer's commit means nothing in the org store")

	res, err := c.Accept(ctx, gitstore.Writer{Agent: "cli"}, bob, m.ID[:6], linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{old.ID}, res.Superseded)
	require.Equal(t, []string{"refs/memory/main"}, w.orgRefs(), "the proposal is closed")
	require.Equal(t, "Alice <alice@example.com> | Bob <bob@example.com>",
		w.git(w.org, "log", "-1", "--format=%an <%ae> | %cn <%ce>", "refs/memory/main"), "author the proposer, committer the reviewer")
	require.Contains(t, w.git(w.org, "log", "-1", "--format=%B", "refs/memory/main"), "Proposal: "+p.Commit.String())

	w.git(w.main, "fetch", "-q", "origin", "+refs/memory/main:refs/memory/main")
	rd, err := gitstore.NewStore(w.open(w.main), gitstore.RefMain, gitstore.ScopeProject).Read()
	require.NoError(t, err)
	got, err := rd.Get(m.ID)
	require.NoError(t, err)
	require.Equal(t, m.Text, got.Text)
	gone, err := rd.Get(old.ID)
	require.NoError(t, err)
	require.Equal(t, m.ID, gone.SupersededBy)

	rv, err = c.Review(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Empty(t, rv.Proposals, "the fetched copy of a closed proposal is pruned")
	for _, dir := range []string{w.org, w.main, c.RepoDir()} {
		gitstoretest.CheckedByGit(t, dir)
	}
}

func TestProposeAgainReplacesOwnProposal(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, m, c := w.linkedCopy("web", "Staging is reset every night at 02:00 UTC")
	_, _, err := c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)
	m.Text = "Staging is reset every night at 03:00 UTC"
	_, replaced, err := c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.True(t, replaced)
	_, _, err = c.Propose(ctx, m, bob, linkstore.RefreshOptions{})
	require.NoError(t, err)
	rv, err := c.Review(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Len(t, rv.Proposals, 2, "one proposal per author and memory")
	for _, p := range rv.Proposals {
		require.Equal(t, m.Text, p.Memory.Text)
	}
	_, err = c.Accept(ctx, gitstore.Writer{}, bob, m.ID, linkstore.RefreshOptions{})
	var amb *gitstore.AmbiguousError
	require.ErrorAs(t, err, &amb, "two authors proposed the same memory")
}

func TestRejectRecordsReason(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, m, c := w.linkedCopy("web", "Every service deploys on Fridays")
	_, _, err := c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)

	for _, bad := range []string{"", "two\nlines", "leaks ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"} {
		_, err := c.Reject(ctx, bob, m.ID, bad, linkstore.RefreshOptions{})
		require.Error(t, err, "%q", bad)
	}
	require.Contains(t, w.orgRefs(), "refs/memory/proposals/alice-example.com/"+m.ID, "a refused reason closes nothing")

	p, err := c.Reject(ctx, bob, m.ID, "only the web team deploys on Fridays", linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Equal(t, m.ID, p.ID)
	require.Equal(t, []string{"refs/memory/reviews/rejected"}, w.orgRefs(), "the proposal is gone, its rejection recorded")

	// a second rejection lands on top of the first, from another copy
	_, m2, _ := w.linkedCopy("api", "Every service uses Postgres 12")
	_, _, err = c.Propose(ctx, m2, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)
	_, err = c.Reject(ctx, bob, m2.ID, "we are on Postgres 16", linkstore.RefreshOptions{})
	require.NoError(t, err)

	rv, err := c.Review(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Empty(t, rv.Proposals)
	require.Len(t, rv.Rejected, 2)
	require.Equal(t, m2.ID, rv.Rejected[0].ID, "newest first")
	require.Equal(t, "we are on Postgres 16", rv.Rejected[0].Reason)
	require.Equal(t, "only the web team deploys on Fridays", rv.Rejected[1].Reason)
	require.Equal(t, bob, rv.Rejected[1].Reviewer)
	require.Equal(t, "alice-example.com", rv.Rejected[1].Author)
	require.NotContains(t, w.git(w.org, "log", "--format=%B", "refs/memory/reviews/rejected"), "Fridays\n", "the rejected text is not kept")
	require.Equal(t, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", w.git(w.org, "rev-parse", "refs/memory/reviews/rejected^{tree}"), "the record holds no memory")
	gitstoretest.CheckedByGit(t, w.org)
}

func TestProposeRefusedByHost(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	p, m, c := w.linkedCopy("web", "The on-call rotation changes on Mondays")
	hook := filepath.Join(w.org, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'acme: proposals are closed this week' >&2\nexit 1\n"), 0o755))
	before, err := gitstore.NewStore(p, gitstore.RefMain, gitstore.ScopeProject).Tip()
	require.NoError(t, err)

	_, _, err = c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.ErrorIs(t, err, memerr.ErrRemote)
	require.Contains(t, err.Error(), "acme: proposals are closed this week", "the host's message is shown")
	after, err := gitstore.NewStore(p, gitstore.RefMain, gitstore.ScopeProject).Tip()
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, []string{m.Text}, texts(t, p), "nothing is lost here")
	require.Empty(t, w.orgRefs())
}

func TestAcceptRefusedKeepsProposalAndCopyAsItWas(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.orgAdd("The platform team owns the CI runners")
	_, m, c := w.linkedCopy("web", "The platform team owns the CI runners and the caches")
	_, _, err := c.Propose(ctx, m, alice, linkstore.RefreshOptions{})
	require.NoError(t, err)
	// refs/memory/main is protected: only proposals may be pushed
	hook := filepath.Join(w.org, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nwhile read old new ref; do case \"$ref\" in refs/memory/main) echo \"$ref is protected: ask a maintainer\" >&2; exit 1;; esac; done\n"), 0o755))

	_, err = c.Accept(ctx, gitstore.Writer{}, bob, m.ID, linkstore.RefreshOptions{})
	require.ErrorIs(t, err, linkstore.ErrNotAccepted)
	require.Contains(t, err.Error(), "refs/memory/main is protected: ask a maintainer")
	require.Contains(t, w.orgRefs(), "refs/memory/proposals/alice-example.com/"+m.ID, "the proposal stays open")
	un, err := c.Unpushed(ctx)
	require.NoError(t, err)
	require.Empty(t, un, "the copy is as it was: no one reads the refused memory as the org's")
	rd, err := gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject).Read()
	require.NoError(t, err)
	_, err = rd.Get(m.ID)
	require.ErrorIs(t, err, memerr.ErrNotFound)
}

func TestHostileProposals(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, _, c := w.linkedCopy("web", "unused")
	// mallory pushes by hand what git mem propose would refuse
	evil := w.project("evil")
	st := gitstore.NewStore(evil, gitstore.RefMain, gitstore.ScopeProject)
	m, err := st.Add(ctx, gitstore.Writer{}, gitstore.NewMemory{Type: gitstore.TypeFact, Source: gitstore.SourceUser, AllowSecret: true,
		Text: "the deploy token is ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"})
	require.NoError(t, err)
	two, err := st.Add(ctx, gitstore.Writer{}, gitstore.NewMemory{Type: gitstore.TypeFact, Source: gitstore.SourceUser, Text: "a second memory"})
	require.NoError(t, err)
	tip, err := st.Tip()
	require.NoError(t, err)
	first := w.git(evil.WorkTree, "rev-list", "--max-parents=0", gitstore.RefMain)
	for _, spec := range []string{
		first + ":refs/memory/proposals/mallory/" + m.ID,          // a secret
		tip.String() + ":refs/memory/proposals/mallory/" + two.ID, // two documents, and a parent
		tip.String() + ":refs/memory/proposals/Mallory/" + two.ID, // not a slug
		tip.String() + ":refs/memory/proposals/mallory/not-an-id",
	} {
		w.git(evil.WorkTree, "push", "-q", w.org, spec)
	}
	rv, err := c.Review(ctx, linkstore.RefreshOptions{})
	require.NoError(t, err)
	require.Len(t, rv.Proposals, 2, "refs that are no proposal's are left out")
	for _, p := range rv.Proposals {
		require.Error(t, p.Err, p.Ref)
		require.Nil(t, p.Memory)
		_, err := c.Accept(ctx, gitstore.Writer{}, bob, p.ID, linkstore.RefreshOptions{})
		require.Error(t, err, "%s cannot be accepted", p.Ref)
	}
	secret, err := linkstore.FindProposal(rv.Proposals, m.ID)
	require.NoError(t, err)
	require.ErrorIs(t, secret.Err, memerr.ErrSecret)
	_, err = c.Reject(ctx, bob, m.ID, "carries a token", linkstore.RefreshOptions{})
	require.NoError(t, err, "a bad proposal can be rejected")
	require.NotContains(t, w.orgRefs(), "refs/memory/proposals/mallory/"+m.ID)
}
