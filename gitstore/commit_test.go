package gitstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestWriteCommitAndReadCommit(t *testing.T) {
	w := newRemoteWorld(t)
	dir, r := w.clone("Ann")
	ctx := context.Background()
	m, err := NewStore(r, RefMain, ScopeProject).Add(ctx, Writer{}, NewMemory{Type: TypeFact, Text: "The API listens on 8080", Source: SourceUser})
	require.NoError(t, err)
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	bad := *m
	bad.Type = "nonsense"
	noID := *m
	noID.ID = "xyz"
	for _, tc := range []struct {
		name              string
		ms                []*Memory
		author, committer string
		want              error
		tree              string // git ls-tree -r --name-only of the commit
		ident             string // %an <%ae> | %cn <%ce>
	}{
		{"one memory", []*Memory{m}, "Bob <bob@example.com>", "Cy <cy@example.com>", nil,
			"memories/" + m.ID[:2] + "/" + m.ID + ".json", "Bob <bob@example.com> | Cy <cy@example.com>"},
		{"empty tree, this repository's identity", nil, "", "", nil, "", "Ann <ann@example.com> | Ann <ann@example.com>"},
		{"invalid memory", []*Memory{&bad}, "", "", memerr.ErrInvalid, "", ""},
		{"no memory id", []*Memory{&noID}, "", "", memerr.ErrInvalid, "", ""},
		{"author not Name <email>", nil, "bob@example.com", "", memerr.ErrInvalid, "", ""},
		{"committer with a newline", nil, "", "Cy\n <cy@example.com>", memerr.ErrInvalid, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := r.WriteCommit(nil, tc.ms, "mem: test\n\nMemory-Op: test\n", when, tc.author, tc.committer)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.tree, w.git(dir, "ls-tree", "-r", "--name-only", h.String()))
			require.Equal(t, tc.ident, w.git(dir, "log", "-1", "--format=%an <%ae> | %cn <%ce>", h.String()))
			tip, err := NewStore(r, RefMain, ScopeProject).Tip()
			require.NoError(t, err)
			require.NotEqual(t, h, tip, "no ref moves")

			c, err := r.ReadCommit(h)
			require.NoError(t, err)
			require.Equal(t, h, c.Commit)
			require.Empty(t, c.Parents)
			require.True(t, when.Equal(c.AuthorTime))
			require.Equal(t, "mem: test\n\nMemory-Op: test\n", c.Message)
			require.Equal(t, "test", c.Op)
			require.Equal(t, tc.ident, c.Author+" | "+c.Committer)
		})
	}
	tip, err := NewStore(r, RefMain, ScopeProject).Tip()
	require.NoError(t, err)
	child, err := r.WriteCommit([]Hash{tip}, nil, "mem: child\n", when, "", "")
	require.NoError(t, err)
	c, err := r.ReadCommit(child)
	require.NoError(t, err)
	require.Equal(t, []Hash{tip}, c.Parents)
	w.fsck(dir)
}

func TestSetTip(t *testing.T) {
	r := NewMemoryRepo()
	ctx := context.Background()
	st := NewStore(r, RefMain, ScopeProject)
	_, err := st.Add(ctx, Writer{}, NewMemory{Text: "first"})
	require.NoError(t, err)
	first, err := st.Tip()
	require.NoError(t, err)
	_, err = st.Add(ctx, Writer{}, NewMemory{Text: "second"})
	require.NoError(t, err)
	second, err := st.Tip()
	require.NoError(t, err)

	// each step moves the ref from `from` to `to` only while it is at from
	for _, step := range []struct {
		from, to Hash
		moved    bool
		want     Hash
		why      string
	}{
		{first, first, false, second, "a ref that moved on is left as it is"},
		{second, first, true, first, "at from, it moves"},
		{first, zeroHash, true, zeroHash, "a zero tip deletes the ref"},
		{zeroHash, second, true, second, "a zero from creates the ref"},
		{zeroHash, first, false, second, "a zero from only while there is no ref"},
	} {
		moved, err := st.SetTip(step.from, step.to)
		require.NoError(t, err, step.why)
		require.Equal(t, step.moved, moved, step.why)
		tip, err := st.Tip()
		require.NoError(t, err)
		require.Equal(t, step.want, tip, step.why)
	}

	ro := NewStore(r, RefMain, ScopeProject)
	ro.ReadOnly = true
	_, err = ro.SetTip(zeroHash, first)
	var roe *memerr.ReadOnlyError
	require.ErrorAs(t, err, &roe)
}

func TestTxCommitAsTrailerGet(t *testing.T) {
	r := NewMemoryRepo()
	ctx := context.Background()
	st := NewStore(r, RefMain, ScopeProject)
	m, err := st.Add(ctx, Writer{}, NewMemory{Text: "Deploys go through the release branch"})
	require.NoError(t, err)
	for _, tc := range []struct {
		name, author, committer string
		want                    error
		ident                   string
	}{
		{"both given", "Bob <bob@example.com>", "Cy <cy@example.com>", nil, "Bob <bob@example.com> | Cy <cy@example.com>"},
		{"committer is the repository's", "Bob <bob@example.com>", "", nil, "Bob <bob@example.com> | " + r.Author()},
		{"author not Name <email>", "<bob@example.com>", "", memerr.ErrInvalid, ""},
		{"committer not Name <email>", "", "Cy", memerr.ErrInvalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := st.Tip()
			require.NoError(t, err)
			h, err := st.Update(ctx, Writer{}, func(tx *Tx) error {
				if err := tx.CommitAs(tc.author, tc.committer); err != nil {
					return err
				}
				got, err := tx.Get(m.ID)
				if err != nil {
					return err
				}
				got.Text += "."
				tx.Put(got)
				again, err := tx.Get(m.ID)
				require.NoError(t, err)
				require.Equal(t, got.Text, again.Text, "Get sees what was staged")
				tx.Describe(opRevise, got.Text, got.ID)
				tx.Trailer("Reviewed-By", "cy")
				return nil
			})
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				after, err := st.Tip()
				require.NoError(t, err)
				require.Equal(t, before, after, "nothing is written")
				return
			}
			require.NoError(t, err)
			c, err := r.ReadCommit(h)
			require.NoError(t, err)
			require.Equal(t, tc.ident, c.Author+" | "+c.Committer)
			require.True(t, strings.HasSuffix(c.Message, "\nReviewed-By: cy\n"), c.Message)
		})
	}
	_, err = st.Update(ctx, Writer{}, func(tx *Tx) error {
		_, err := tx.Get("0123456789abcdef")
		return err
	})
	require.ErrorIs(t, err, memerr.ErrNotFound)
}

func TestMemoryCheck(t *testing.T) {
	r := NewMemoryRepo()
	m, err := NewStore(r, RefMain, ScopeProject).Add(context.Background(), Writer{}, NewMemory{Text: "Staging resets nightly", Keys: []string{"staging"}})
	require.NoError(t, err)
	token := "ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"
	change := func(f func(m *Memory)) *Memory { c := *m; f(&c); return &c }
	for _, tc := range []struct {
		name string
		m    *Memory
		want error
	}{
		{"valid", m, nil},
		{"nil", nil, memerr.ErrInvalid},
		{"bad id", change(func(m *Memory) { m.ID = "XYZ" }), memerr.ErrInvalid},
		{"unknown type", change(func(m *Memory) { m.Type = "rumour" }), memerr.ErrInvalid},
		{"secret in the text", change(func(m *Memory) { m.Text = "token " + token }), memerr.ErrSecret},
		{"secret in a key", change(func(m *Memory) { m.Keys = []string{token} }), memerr.ErrSecret},
		{"secret in a path", change(func(m *Memory) { m.Paths = []string{"https://u:hunter2@example.com/x"} }), memerr.ErrSecret},
		{"secret in the session", change(func(m *Memory) { m.Session = token }), memerr.ErrSecret},
	} {
		err := tc.m.Check()
		if tc.want == nil {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorIs(t, err, tc.want, tc.name)
		}
	}
}

// TestCheckReason: a rejection's reason is one line of text, bounded, and
// holds no secret: it is recorded in a history everyone fetches.
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
		{strings.Repeat("x", maxFieldBytes+1), memerr.ErrInvalid},
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
