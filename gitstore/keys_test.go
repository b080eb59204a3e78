package gitstore

import (
	"context"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestNormalizeKeys(t *testing.T) {
	cases := []struct {
		name string
		in   []string
		want []string
		err  string
	}{
		{"trimmed, blanks and duplicates dropped", []string{"  deploy  target ", "", "Deploy Target", "where does it run?"}, []string{"deploy target", "where does it run?"}, ""},
		{"none", nil, nil, ""},
		{"too long", []string{strings.Repeat("k", MaxKeyBytes+1)}, nil, "longer than"},
		{"control character", []string{"bell\x07"}, nil, "control character"},
		{"invalid UTF-8", []string{"\xff\xfe"}, nil, "UTF-8"},
		{"too many", manyKeys(MaxKeys + 1), nil, "over the maximum"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := normalizeKeys(tc.in)
			if tc.err != "" {
				require.ErrorIs(t, err, memerr.ErrInvalid)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestKeysAddReviseAndRead: keys are stored, read back, scanned for
// secrets, changed by a revision (alone or with the text) and checked on
// read; a document without keys encodes as before.
func TestKeysAddReviseAndRead(t *testing.T) {
	ctx := context.Background()
	st, err := NewSet(NewMemoryRepo()).Writable(ScopeProject)
	require.NoError(t, err)
	m, err := st.Add(ctx, Writer{}, NewMemory{Text: "The API is deployed to Fly.io from main", Keys: []string{"hosting", "where does the backend run?"}})
	require.NoError(t, err)
	rd, err := st.Read()
	require.NoError(t, err)
	got, err := rd.Get(m.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"hosting", "where does the backend run?"}, got.Keys)

	_, err = st.Add(ctx, Writer{}, NewMemory{Text: "the deploy token", Keys: []string{"token ghp_" + strings.Repeat("a1B2", 9)}})
	require.ErrorContains(t, err, "keys")

	r, err := st.Revise(ctx, Writer{}, m.ID, "", WithKeys([]string{"hosting provider"}))
	require.NoError(t, err)
	require.Equal(t, "The API is deployed to Fly.io from main", r.Text)
	require.Equal(t, []string{"hosting provider"}, r.Keys)
	_, err = st.Revise(ctx, Writer{}, m.ID, "", WithKeys([]string{"hosting provider"}))
	require.ErrorContains(t, err, "nothing to revise")
	r, err = st.Revise(ctx, Writer{}, m.ID, "The API is deployed to Fly.io from the main branch")
	require.NoError(t, err)
	require.Equal(t, []string{"hosting provider"}, r.Keys, "a text revision keeps the keys")

	plain, err := st.Add(ctx, Writer{}, NewMemory{Text: "Bookings are stored in UTC"})
	require.NoError(t, err)
	data, err := plain.Encode()
	require.NoError(t, err)
	require.NotContains(t, string(data), `"keys"`)

	_, err = validateDocument([]byte(strings.Replace(string(data), `"source"`, `"keys":["a\u0007"],"source"`, 1)), "")
	require.ErrorIs(t, err, memerr.ErrInvalid)
}

func manyKeys(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, "key "+strings.Repeat("x", i+1))
	}
	return out
}

// TestEveryFieldPassesTheSecretRules: a credential in a path, a tag, a key
// or a dispute reason is refused like one in the text, and nothing is
// written.
func TestEveryFieldPassesTheSecretRules(t *testing.T) {
	ctx := context.Background()
	st, err := NewSet(NewMemoryRepo()).Writable(ScopeProject)
	require.NoError(t, err)
	token := "ghp_" + strings.Repeat("a1B2", 9)
	cases := []struct {
		name  string
		n     NewMemory
		field string
	}{
		{"path", NewMemory{Text: "the deploy script", Paths: []string{"scripts/" + token + ".sh"}}, "paths"},
		{"tag", NewMemory{Text: "the deploy script", Tags: []string{token}}, "tags"},
		{"key", NewMemory{Text: "the deploy script", Keys: []string{"token " + token}}, "keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Add(ctx, Writer{}, tc.n)
			require.ErrorIs(t, err, memerr.ErrSecret)
			require.ErrorContains(t, err, tc.field)
		})
	}
	m, err := st.Add(ctx, Writer{}, NewMemory{Text: "the deploy script lives in scripts/deploy.sh"})
	require.NoError(t, err)
	_, err = st.Dispute(ctx, Writer{}, m.ID, "it leaked "+token)
	require.ErrorIs(t, err, memerr.ErrSecret)
	require.ErrorContains(t, err, "reason")
	rd, err := st.Read()
	require.NoError(t, err)
	all, err := rd.All()
	require.NoError(t, err)
	require.Len(t, all, 1)
	require.Empty(t, all[0].Events, "the dispute was not written")
}

// TestWriterNamesPassTheWriteRules: the writer's names reach every commit
// and memory a write makes, and come from payloads, MCP clients, flags and
// config: a credential or a control character in one refuses the write, and
// nothing is written.
func TestWriterNamesPassTheWriteRules(t *testing.T) {
	ctx := context.Background()
	st, err := NewSet(NewMemoryRepo()).Writable(ScopeProject)
	require.NoError(t, err)
	token := "ghp_" + strings.Repeat("a1B2", 9)
	cases := []struct {
		name string
		w    Writer
		want error
		says string
	}{
		{"agent token", Writer{Agent: token}, memerr.ErrSecret, "agent"},
		{"session token", Writer{Agent: "claude", Session: "s-" + token}, memerr.ErrSecret, "session"},
		{"subagent url with password", Writer{Agent: "claude", Subagent: "https://bob:hunter2hunter2@example.com/x"}, memerr.ErrSecret, "subagent"},
		{"agent escape", Writer{Agent: "claude\x1b[31m"}, memerr.ErrInvalid, "agent"},
		{"session too long", Writer{Session: strings.Repeat("s", maxFieldBytes+1)}, memerr.ErrInvalid, "session"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tip, err := st.Tip()
			require.NoError(t, err)
			_, err = st.Add(ctx, tc.w, NewMemory{Text: "the deploy script lives in scripts/deploy.sh"})
			require.ErrorIs(t, err, tc.want)
			require.ErrorIs(t, err, memerr.ErrWriter)
			require.ErrorContains(t, err, tc.says)
			require.Equal(t, err, tc.w.Check(), "a caller can ask first")
			after, err := st.Tip()
			require.NoError(t, err)
			require.Equal(t, tip, after, "nothing was written")
		})
	}
	_, err = st.Add(ctx, Writer{Agent: "claude-code", Subagent: "explore:a1", Session: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}, NewMemory{Text: "the deploy script lives in scripts/deploy.sh"})
	require.NoError(t, err)
}
