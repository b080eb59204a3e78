package gitstore

import (
	"strings"
	"testing"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
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

func TestCheckReason(t *testing.T) {
	for _, tc := range []struct {
		reason string
		want   error
	}{
		{"only true for the billing service", nil},
		{"  padded  ", nil},
		{"", memerr.ErrInvalid},
		{"   ", memerr.ErrInvalid},
		{"two\nlines", memerr.ErrInvalid},
		{"a\ttab", memerr.ErrInvalid},
		{"bell\x07", memerr.ErrInvalid},
		{strings.Repeat("x", maxReasonBytes+1), memerr.ErrInvalid},
		{"\xff\xfe", memerr.ErrInvalid},
		{"it leaks ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu", memerr.ErrSecret},
	} {
		err := CheckReason(tc.reason)
		if tc.want == nil {
			require.NoError(t, err, tc.reason)
		} else {
			require.ErrorIs(t, err, tc.want, "%q", tc.reason)
		}
	}
}

func TestCheckProposal(t *testing.T) {
	r := NewMemoryRepo()
	st := NewStore(r, RefMain, ScopeProject)
	ctx := t.Context()
	ok, err := st.Add(ctx, Writer{}, NewMemory{Type: TypeFact, Text: "Releases are cut on Tuesdays", Source: SourceUser})
	require.NoError(t, err)
	newer, err := st.Add(ctx, Writer{}, NewMemory{Type: TypeFact, Text: "Releases are cut on Wednesdays", Source: SourceUser, Supersedes: ok.ID})
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
	handoff.Type = TypeHandoff
	badID := *newer
	badID.ID = "xyz"
	for _, tc := range []struct {
		name string
		m    *Memory
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
		err := CheckProposal(tc.m, r.Now())
		if tc.want == nil {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorIs(t, err, tc.want, tc.name)
		}
	}
}
