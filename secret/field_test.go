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

// TestScanInContext: a line a note or a handoff puts before or around a
// look-alike does not make it a credential, and a reference to a secret is
// not its name.
func TestScanInContext(t *testing.T) {
	for _, text := range []string{
		"Next: commit=a4c123b1612dd272d1371c17149d439536b3216f is the last green build",
		"Warning: request_id=26a2c0bd-3b12-47ff-b52d-df5d616499c9",
		"Done: payload=SGVsbG8gd29ybGQsIHRoaXMgaXMgYW4gb3JkaW5hcnkgdGVzdCBtZXNzYWdl",
		"password = os.Getenv(\"DB_PASSWORD\")\n- 1a2b3c4 fix the flaky test",
		"curl -u admin:$ADMIN_PASSWORD https:/ci.internal/api/json",
		"- 3e1f0c2 const token = process.env.API_TOKEN\n- 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
		"Files changed: secretKeyRef: name: db-creds key: password, secrets: inherit, sk-learn style",
		"rerun with -run=FuzzParseSpec_4f1c2a9e",
	} {
		require.Empty(t, Scan(text), text)
	}
	for _, text := range []string{
		"note: HMAC_KEY_MATERIAL=Oa7vXk22EBuAQHYzio0Yj3HQcuxIPrQMw4NNifP8RAm2tD8k",
		"blob: QWxhZGRpbjpvcGVuIHNlc2FtZTpGYWtlMjAyNnhZ9q==",
		"the password is Fak3-r9Lq2w",
	} {
		require.NotEmpty(t, Scan(text), text)
	}
}
