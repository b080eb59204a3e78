package gitstore

import (
	"context"
	"testing"
	"time"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestParseGitDate(t *testing.T) {
	utc := time.Date(2025, 3, 4, 10, 20, 30, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
	}{
		{"@1741083630", utc},
		{"@1741083630 +0200", utc},
		{"1741083630 -0500", utc},
		{"2025-03-04T10:20:30Z", utc},
		{"2025-03-04T12:20:30+02:00", utc},
		{"2025-03-04T10:20:30", utc},
		{"2025-03-04 12:20:30 +0200", utc},
		{"Tue, 04 Mar 2025 12:20:30 +0200", utc},
		{"Tue Mar 4 12:20:30 2025 +0200", utc},
		{"2025-03-04", time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseGitDate(tc.in)
			require.NoError(t, err)
			require.True(t, tc.want.Equal(got), "got %s", got)
		})
	}
	for _, bad := range []string{"", "yesterday", "@12x", "1741083630 +02", "2025-13-01"} {
		_, err := parseGitDate(bad)
		require.ErrorIs(t, err, memerr.ErrInvalid, bad)
	}
}

func TestUseGitDates(t *testing.T) {
	r := NewMemoryRepo()
	env := map[string]string{"GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z"}
	require.NoError(t, r.UseGitDates(func(k string) string { return env[k] }))
	st := NewSet(r)
	s, err := st.Writable(ScopeProject)
	require.NoError(t, err)
	m, err := s.Add(context.Background(), Writer{}, NewMemory{Text: "the api listens on port 8080"})
	require.NoError(t, err)
	require.True(t, m.Created.Equal(time.Unix(1700000000, 0)), m.Created)
	tip, err := s.Tip()
	require.NoError(t, err)
	c, err := r.readCommit(tip)
	require.NoError(t, err)
	require.True(t, c.Author.When.Equal(time.Unix(1700000000, 0)))
	require.True(t, c.Committer.When.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)))

	require.ErrorContains(t, NewMemoryRepo().UseGitDates(func(k string) string { return "soon" }), "GIT_AUTHOR_DATE")
}
