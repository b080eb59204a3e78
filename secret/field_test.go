package secret

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestURLWithPassword: a URL whose userinfo holds a password is found
// whatever the password looks like; a user alone, a variable or a mask is
// not a password.
func TestURLWithPassword(t *testing.T) {
	for _, c := range []struct {
		v    string
		want string // the finding's text; "" for none
	}{
		{"postgres://app:hunter2@db.internal:5432/prod", "postgres://app:hunter2"},
		{"postgres://app:postgres@localhost/app", "postgres://app:postgres"},
		{"see redis://:x@cache/0", "redis://:x"},
		{"https://u:p%40ss@host/path", "https://u:p%40ss"},
		{"docs/postgres://app:pw@db/x.md", "postgres://app:pw"},
		{"ssh://git@github.com/git-mem/git-mem.git", ""},
		{"postgres://app@db.internal/app", ""},
		{"postgres://app:${DB_PASSWORD}@db/app", ""},
		{"postgres://app:$DB_PASSWORD@db/app", ""},
		{"postgres://app:****@db/app", ""},
		{"https://example.com/a:b@c", ""},
		{"server/auth.ts", ""},
		{"://:a@b", ""},
	} {
		f, ok := URLWithPassword(c.v)
		if c.want == "" {
			require.False(t, ok, c.v)
			continue
		}
		require.True(t, ok, c.v)
		require.Equal(t, c.want, c.v[f.Start:f.End], c.v)
	}
}
