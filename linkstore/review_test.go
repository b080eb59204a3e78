package linkstore

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

func TestAuthorSlug(t *testing.T) {
	for _, tc := range []struct{ identity, want string }{
		{"Alice <alice@example.com>", "alice-example.com"},
		{"Bob Q. <Bob.Q+mem@Example.COM>", "bob.q-mem-example.com"},
		{"Nobody <>", "nobody"},
		{"no brackets at all", "no-brackets-at-all"},
		{"X <..a..b..@x.lock>", "a.b.-x"},
		{"X <-._@é>", ""},
		{"X <" + strings.Repeat("a", 100) + "@example.com>", strings.Repeat("a", maxSlugBytes)},
	} {
		got := authorSlug(tc.identity)
		require.Equal(t, tc.want, got, tc.identity)
		if got != "" {
			require.NoError(t, checkAuthorSlug(got), "authorSlug makes only slugs checkAuthorSlug takes: %q", got)
		}
	}
}

func TestCheckAuthorSlug(t *testing.T) {
	for _, tc := range []struct {
		slug string
		ok   bool
	}{
		{"alice-example.com", true}, {"a", true}, {"a_b", true},
		{"", false}, {"Alice", false}, {"-a", false}, {"a-", false}, {".a", false}, {"a..b", false},
		{"a.lock", false}, {"a/b", false}, {"a b", false}, {"a\x00", false}, {"é", false},
		{strings.Repeat("a", maxSlugBytes+1), false},
	} {
		err := checkAuthorSlug(tc.slug)
		if tc.ok {
			require.NoError(t, err, tc.slug)
		} else {
			require.ErrorIs(t, err, memerr.ErrInvalid, "%q", tc.slug)
		}
	}
}

func TestParseProposalName(t *testing.T) {
	id := "0123456789abcdef"
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"alice/" + id, true},
		{"alice/" + id + "/x", false}, {"alice", false}, {"Alice/" + id, false}, {"alice/0123", false},
		{"alice/" + strings.ToUpper(id), false}, {"../" + id, false},
	} {
		author, gotID, err := parseProposalName(tc.name)
		if tc.ok {
			require.NoError(t, err, tc.name)
			require.Equal(t, "alice", author)
			require.Equal(t, id, gotID)
		} else {
			require.Error(t, err, tc.name)
		}
	}
}

func TestCheckProposal(t *testing.T) {
	r := gitstore.NewMemoryRepo()
	st := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject)
	ctx := t.Context()
	ok, err := st.Add(ctx, gitstore.Writer{}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Releases are cut on Tuesdays", Source: gitstore.SourceUser})
	require.NoError(t, err)
	newer, err := st.Add(ctx, gitstore.Writer{}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "Releases are cut on Wednesdays", Source: gitstore.SourceUser, Supersedes: ok.ID})
	require.NoError(t, err)
	rd, err := st.Read()
	require.NoError(t, err)
	old, err := rd.Get(ok.ID)
	require.NoError(t, err)
	secretText := *newer
	secretText.Text = "the token is ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"
	secretKey := *newer
	secretKey.Keys = []string{"ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"}
	handoff := *newer
	handoff.Type = gitstore.TypeHandoff
	badID := *newer
	badID.ID = "xyz"
	for _, tc := range []struct {
		name string
		m    *gitstore.Memory
		want error
	}{
		{"current", newer, nil},
		{"superseded", old, memerr.ErrRetired},
		{"secret in the text", &secretText, memerr.ErrSecret},
		{"secret in a key", &secretKey, memerr.ErrSecret},
		{"handoff", &handoff, memerr.ErrInvalid},
		{"bad id", &badID, memerr.ErrInvalid},
		{"nil", nil, memerr.ErrInvalid},
	} {
		err := checkProposal(tc.m, r.Now())
		if tc.want == nil {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorIs(t, err, tc.want, tc.name)
		}
	}
}

func TestFindProposal(t *testing.T) {
	a := Proposal{ID: "0123456789abcdef", Proposer: "Alice <alice@example.com>"}
	b := Proposal{ID: "0123ffff89abcdef", Proposer: "Bob <bob@example.com>"}
	ps := []Proposal{a, b}
	for _, tc := range []struct {
		prefix string
		want   string
		err    error
	}{
		{"0123456", a.ID, nil},
		{" 0123FFFF ", b.ID, nil},
		{"0123", "", &gitstore.AmbiguousError{}},
		{"4567", "", memerr.ErrNoProposal},
		{"012", "", memerr.ErrInvalid},
		{"0123456789abcdef0", "", memerr.ErrInvalid},
		{"zzzz", "", memerr.ErrInvalid},
	} {
		p, err := FindProposal(ps, tc.prefix)
		switch want := tc.err.(type) {
		case nil:
			require.NoError(t, err, tc.prefix)
			require.Equal(t, tc.want, p.ID)
		case *gitstore.AmbiguousError:
			require.ErrorAs(t, err, &want, tc.prefix)
			require.Len(t, want.Candidates, 2)
			require.Equal(t, b.Proposer, want.Candidates[1].Author, "a candidate names its proposer")
		default:
			require.ErrorIs(t, err, tc.err, tc.prefix)
		}
	}
	_, err := FindProposal(nil, "4567")
	require.ErrorIs(t, err, memerr.ErrNotFound, "no proposal is not found")
	require.NotErrorIs(t, memerr.ErrNotFound, memerr.ErrNoProposal)
}

func TestRejectBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempt int
		window  time.Duration
	}{
		{0, 50 * time.Millisecond}, {1, 100 * time.Millisecond}, {2, 200 * time.Millisecond},
		{3, 400 * time.Millisecond}, {20, 400 * time.Millisecond},
	} {
		var longest time.Duration
		for i := 0; i < 500; i++ {
			d := rejectBackoff(tc.attempt)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.Less(t, d, tc.window, "attempt %d", tc.attempt)
			longest = max(longest, d)
		}
		require.Greater(t, longest, tc.window/2, "attempt %d spreads over its window", tc.attempt)
	}
}
