package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestWriteBatchOneCommit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		w := Writer{Agent: "importer", Session: "s2"}
		old := add(t, s, "The API listens on port 8080")
		c.advance(time.Hour)
		first := NewID()
		created := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		restored := &Memory{
			ID: NewID(), Author: "Ada <ada@example.com>", Agent: "codex", Created: created, Updated: created.Add(time.Hour), ValidFrom: created,
			Events: []Event{{Op: EventConfirm, At: created.Add(time.Hour), Agent: "codex"}},
		}
		res, err := s.WriteBatch(ctx, w, OpImport, "import 4 memories from CLAUDE.md", []BatchEntry{
			{ID: first, New: NewMemory{Type: TypeCommand, Text: "Run `make test` before pushing", Tags: []string{"CI"}, Origin: &Origin{File: "CLAUDE.md", Line: 3}}},
			{Reinforce: first, New: NewMemory{Type: TypeCommand, Text: "run `make test` before pushing"}},
			{Reinforce: old.ID, New: NewMemory{Text: "The API listens on port 8080"}},
			{New: NewMemory{Type: TypeDecision, Text: "Bookings are stored in UTC", Source: SourceVerified, Pinned: true}, Restore: restored},
		})
		require.NoError(t, err)
		require.NotEmpty(t, res.Commit)
		require.Equal(t, []bool{false, true, true, false}, res.Reinforced)

		log, err := s.Log(ctx, 0)
		require.NoError(t, err)
		require.Len(t, log, 2, "one commit for the whole batch")
		require.Equal(t, "mem: import import 4 memories from CLAUDE.md", log[0].Subject)
		require.Equal(t, OpImport, log[0].Op)
		require.ElementsMatch(t, []string{first, old.ID, restored.ID}, log[0].IDs)

		rd, err := s.Read()
		require.NoError(t, err)
		m, err := rd.Get(first)
		require.NoError(t, err)
		require.Equal(t, &Origin{File: "CLAUDE.md", Line: 3}, m.Origin)
		require.Equal(t, []string{"ci"}, m.Tags, "normalized as add does")
		require.Len(t, m.Events, 1, "reinforced by the later entry of the batch")
		o, err := rd.Get(old.ID)
		require.NoError(t, err)
		require.Equal(t, EventReinforce, o.Events[0].Op)
		r, err := rd.Get(restored.ID)
		require.NoError(t, err)
		require.Equal(t, created, r.Created)
		require.Equal(t, "Ada <ada@example.com>", r.Author)
		require.Equal(t, 0.75, r.Trust, "trust starts from the source")
		require.True(t, r.Pinned)
		require.Equal(t, restored.Events, r.Events)

		// A restore whose id is already there is left alone: nothing to commit.
		again, err := s.WriteBatch(ctx, w, OpImport, "again", []BatchEntry{{New: NewMemory{Text: "changed"}, Restore: restored}})
		require.NoError(t, err)
		require.Empty(t, again.Commit)
		require.Nil(t, again.Memories[0])
	})
}

func TestWriteBatchRefusesWholeBatchOnInvalidEntry(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		_, err := s.WriteBatch(context.Background(), Writer{}, OpImport, "x", []BatchEntry{
			{New: NewMemory{Text: "fine"}},
			{New: NewMemory{Text: "password=hunter2hunter2"}},
		})
		require.True(t, errors.Is(err, memerr.ErrSecret), "%v", err)
		require.Contains(t, err.Error(), "entry 2")
		tip, err := s.Tip()
		require.NoError(t, err)
		require.True(t, tip.IsZero(), "nothing was written")

		_, err = s.WriteBatch(context.Background(), Writer{}, OpImport, "x", []BatchEntry{
			{New: NewMemory{Text: "fine", Origin: &Origin{File: "bad\x1bname.md"}}},
		})
		require.True(t, errors.Is(err, memerr.ErrInvalid), "%v", err)
	})
}

func TestOriginEncodedLastAndMerged(t *testing.T) {
	m := &Memory{ID: strings.Repeat("a", 16), Type: TypeFact, Text: "x", Source: SourceUser, Trust: 0.9, Origin: &Origin{File: "docs/adr/0001.md", Line: 1}}
	b, err := m.Encode()
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(b), `,"origin":{"file":"docs/adr/0001.md","line":1}}`+"\n"), string(b))
	back, err := DecodeMemory(b)
	require.NoError(t, err)
	require.Equal(t, m.Origin, back.Origin)

	// A document without an origin is encoded as before the field existed.
	m.Origin = nil
	b, err = m.Encode()
	require.NoError(t, err)
	require.NotContains(t, string(b), "origin")

	// The origin is a creation field: a merge keeps it whichever side wins.
	a := *back
	other := *back
	other.Origin = nil
	other.Updated = other.Updated.Add(time.Hour)
	for _, pair := range [][2]*Memory{{&a, &other}, {&other, &a}} {
		merged, err := mergeMemory(nil, pair[0], pair[1])
		require.NoError(t, err)
		require.Equal(t, back.Origin, merged.Origin)
	}
}

// TestWriteBatchWritesOnePack: a large batch lands as one pack, not a loose
// file per object; git reads it (fsck), and so does the store right after.
func TestWriteBatchWritesOnePack(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := NewStore(r, RefMain, ScopeProject)
	entries := make([]BatchEntry, 600)
	for i := range entries {
		entries[i] = BatchEntry{New: NewMemory{Text: fmt.Sprintf("memory number %d of the batch", i)}}
	}
	res, err := s.WriteBatch(context.Background(), Writer{Agent: "test"}, OpImport, "600 memories", entries)
	require.NoError(t, err)
	count := gittest.Run(t, dir, "count-objects", "-v")
	require.True(t, strings.HasPrefix(count, "count: 0\n"), "no loose objects: %s", count)
	require.Contains(t, count, "\npacks: 1\n")
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
	require.Equal(t, "1\n", gittest.Run(t, dir, "rev-list", "--count", RefMain))
	all, err := s.List(Filter{})
	require.NoError(t, err)
	require.Len(t, all, 600)
	m, err := s.Reinforce(context.Background(), Writer{Agent: "test"}, res.Memories[0].ID)
	require.NoError(t, err, "a write on top of the pack")
	require.Len(t, m.Events, 1)
}
