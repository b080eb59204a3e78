package handoff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/memerr"
)

// newSessions gives access to the session files of a new repository.
func newSessions(t *testing.T) *Sessions {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	gitstoretest.CheckedByGit(t, dir)
	repo, err := gitstore.Open(dir)
	require.NoError(t, err)
	s, err := OpenSessions(repo)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(s.Dir, 0o755))
	return s
}

// TestPruneAtMostHourly: expired session files go at a session start, but
// the folder is listed at most once an hour.
func TestPruneAtMostHourly(t *testing.T) {
	s := newSessions(t)
	expired := func(name string) string {
		p := filepath.Join(s.Dir, name)
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
		old := time.Now().Add(-2 * SessionTTL)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	a := expired("old-a.json")
	ctx := context.Background()
	_, _, err := s.Start(ctx, "s1", "test", time.Now())
	require.NoError(t, err)
	require.NoFileExists(t, a)
	b := expired("old-b.json")
	_, _, err = s.Start(ctx, "s2", "test", time.Now())
	require.NoError(t, err)
	require.FileExists(t, b, "within the hour the folder is not listed again")
	_, _, err = s.Start(ctx, "s3", "test", time.Now().Add(2*pruneEvery))
	require.NoError(t, err)
	require.NoFileExists(t, b)
}

// TestCountPromptAppends: a prompt is counted by one appended byte, without
// rewriting the marker; the count survives a save and a load, and adds to
// what a marker written by an earlier version counted in itself.
func TestCountPromptAppends(t *testing.T) {
	s := newSessions(t)
	// a marker as an earlier version left it: three prompts counted in it
	require.NoError(t, os.WriteFile(s.path("old", ".json"), []byte(`{"session":"old","started":"2026-01-01T00:00:00Z","prompts":3,"reminded":1}`), 0o600))

	tests := []struct {
		name    string
		session string
		base    int
	}{
		{"new marker", "new", 0},
		{"marker of an earlier version", "old", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, err := s.Start(context.Background(), tt.session, "test", time.Now())
			require.NoError(t, err)
			require.Equal(t, tt.base, m.Prompts)
			marker, err := os.ReadFile(s.path(tt.session, ".json"))
			require.NoError(t, err)
			for i := 1; i <= 4; i++ {
				require.NoError(t, s.CountPrompt(m))
				require.Equal(t, tt.base+i, m.Prompts)
				loaded, err := s.Load(tt.session)
				require.NoError(t, err)
				require.Equal(t, tt.base+i, loaded.Prompts)
			}
			after, err := os.ReadFile(s.path(tt.session, ".json"))
			require.NoError(t, err)
			require.Equal(t, marker, after, "counting does not rewrite the marker")

			m.Reminded = m.Prompts
			require.NoError(t, s.Save(m))
			require.NoError(t, s.CountPrompt(m))
			loaded, err := s.Load(tt.session)
			require.NoError(t, err)
			require.Equal(t, tt.base+5, loaded.Prompts, "a saved marker is not counted twice")
			require.Equal(t, tt.base+4, loaded.Reminded)
		})
	}
}

// TestBeginWritesNothing: Begin makes a new session's marker without
// writing it, and finds a marker written (Start, Save) as Start does.
func TestBeginWritesNothing(t *testing.T) {
	s := newSessions(t)
	ctx := context.Background()
	now := time.Now()
	for _, tc := range []struct {
		name    string
		start   func(id string) (*Marker, bool, error)
		written bool
	}{
		{"Begin", func(id string) (*Marker, bool, error) { return s.Begin(ctx, id, "test", now) }, false},
		{"Start", func(id string) (*Marker, bool, error) { return s.Start(ctx, id, "test", now) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "new-" + tc.name
			m, existed, err := tc.start(id)
			require.NoError(t, err)
			require.False(t, existed)
			require.Equal(t, id, m.Session)
			require.Equal(t, now.UTC(), m.Started)
			got, err := s.Load(id)
			require.NoError(t, err)
			require.Equal(t, tc.written, got != nil, "written")
			m.Injected = now
			require.NoError(t, s.Save(m))
			again, existed, err := tc.start(id)
			require.NoError(t, err)
			require.True(t, existed, "found once written")
			require.Equal(t, now.UTC(), again.Injected.UTC())
		})
	}
	_, _, err := s.Begin(ctx, "", "test", now)
	require.ErrorIs(t, err, memerr.ErrInvalid)
}
