package gitstore

import (
	"testing"
	"time"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 12, 6, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-30T08:00:00Z", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)},
		{"2026-11-30", time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)},
		{"now", now},
	} {
		got, err := ParseWhen(tc.in, now)
		require.NoError(t, err, tc.in)
		require.True(t, tc.want.Equal(got), "%s: %v", tc.in, got)
	}
	_, err := ParseWhen("someday", now)
	require.ErrorIs(t, err, memerr.ErrInvalid)
	var e *memerr.InvalidInputError
	require.ErrorAs(t, err, &e)
	require.Equal(t, memerr.FieldWhen, e.Field)
	require.Contains(t, err.Error(), `"someday" is not a time`)
}
