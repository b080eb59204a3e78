package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/gitrefs"
	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/memerr"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// backend builds a fresh repository for the store suite.
type backend struct {
	name string
	new  func(t *testing.T) *Repo
}

var backends = []backend{
	{"memory", func(t *testing.T) *Repo {
		// An in-memory repository has no config: the identity comes from the environment.
		t.Setenv("GIT_AUTHOR_NAME", "Test User")
		t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
		return NewMemoryRepo()
	}},
	{"disk", func(t *testing.T) *Repo {
		dir := gitInit(t)
		r, err := Open(dir)
		require.NoError(t, err)
		return r
	}},
}

// gitInit makes a real repository with the git CLI and returns its work tree.
func gitInit(t testing.TB, extra ...string) string {
	t.Helper()
	dir := gittest.Init(t, extra...)
	gitstoretest.CheckedByGit(t, dir)
	return dir
}

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }
func storeOn(r *Repo, c *clock) *Store   { r.Now = c.now; return NewStore(r, RefMain, ScopeProject) }
func add(t *testing.T, s *Store, text string) *Memory {
	t.Helper()
	m, err := s.Add(context.Background(), Writer{Agent: "test-agent", Session: "s1"}, NewMemory{Type: TypeFact, Text: text})
	require.NoError(t, err)
	return m
}

// forEachBackend runs the test body against an in-memory and an on-disk repository.
func forEachBackend(t *testing.T, body func(t *testing.T, s *Store, c *clock)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			c := newClock()
			body(t, storeOn(b.new(t), c), c)
		})
	}
}

func TestStoreAddGetList(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		m, err := s.Add(ctx, Writer{Agent: "claude-code", Session: "abc"}, NewMemory{
			Type: "Decision", Text: "Bookings are stored in UTC", Tags: []string{"Time", "time", " db "},
			Paths: []string{"./server/booking.ts", "server/booking.ts"}, Source: "verified",
			Anchor: &Anchor{Commit: strings.Repeat("a", 40), Branch: "main"},
		})
		require.NoError(t, err)
		require.Len(t, m.ID, IDHexLen)
		require.Equal(t, TypeDecision, m.Type)
		require.Equal(t, []string{"time", "db"}, m.Tags)
		require.Equal(t, []string{"server/booking.ts"}, m.Paths)
		require.Equal(t, 0.75, m.Trust)
		require.Equal(t, "Test User <test@example.com>", m.Author)

		rd, err := s.Read()
		require.NoError(t, err)
		got, err := rd.Get(m.ID)
		require.NoError(t, err)
		require.Equal(t, "Bookings are stored in UTC", got.Text)
		require.Equal(t, "claude-code", got.Agent)
		require.Equal(t, ScopeProject, got.Scope())
		require.Equal(t, c.t, got.Created)

		c.advance(time.Minute)
		add(t, s, "The API listens on port 8080")
		list, err := s.List(Filter{Now: c.t})
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, "The API listens on port 8080", list[0].Text, "newest first")

		ids, err := rd.resolve(m.ID[:6])
		require.NoError(t, err)
		require.Equal(t, []string{m.ID}, ids)
	})
}

func TestStoreCommitMessageAndTrailers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		m := add(t, s, "Run make test before pushing")
		log, err := s.Log(context.Background(), 0)
		require.NoError(t, err)
		require.Len(t, log, 1)
		require.Equal(t, "mem: add "+m.ID[:6]+" fact: Run make test before pushing", log[0].Subject)
		require.Equal(t, OpAdd, log[0].Op)
		require.Equal(t, []string{m.ID}, log[0].IDs)
		require.Equal(t, "test-agent", log[0].Agent)
		require.Equal(t, "s1", log[0].Session)
	})
}

func TestStoreReviseHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		m := add(t, s, "Postgres runs on port 5433")
		c.advance(time.Hour)
		_, err := s.Revise(ctx, Writer{Agent: "codex"}, m.ID, "Postgres runs on port 5432")
		require.NoError(t, err)
		_, err = s.Revise(ctx, Writer{Agent: "codex"}, m.ID, "Postgres runs on port 5432")
		require.ErrorIs(t, err, memerr.ErrInvalid, "revising to the same text is refused")

		hist, err := s.History(ctx, m.ID)
		require.NoError(t, err)
		require.Len(t, hist, 2)
		require.Equal(t, opRevise, hist[0].Op)
		require.Equal(t, "codex", hist[0].Agent)
		require.Equal(t, "Postgres runs on port 5432", hist[0].Memory.Text)
		require.Equal(t, OpAdd, hist[1].Op)
		require.Equal(t, "Postgres runs on port 5433", hist[1].Memory.Text)
	})
}

// TestChangesIfVersion: a change made IfVersion happens while the memory
// is at that version, and is refused with memerr.ErrChanged, writing nothing, once
// anything changed it (an event, a revision), whichever change it is.
func TestChangesIfVersion(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		w := Writer{Agent: "ui"}
		changes := []struct {
			name string
			do   func(id string, opt WriteOption) (*Memory, error)
		}{
			{"revise", func(id string, opt WriteOption) (*Memory, error) {
				return s.Revise(ctx, w, id, "Postgres runs on port 6432", opt)
			}},
			{"confirm", func(id string, opt WriteOption) (*Memory, error) { return s.Confirm(ctx, w, id, opt) }},
			{"dispute", func(id string, opt WriteOption) (*Memory, error) { return s.Dispute(ctx, w, id, "wrong port", opt) }},
			{"forget", func(id string, opt WriteOption) (*Memory, error) { return s.Forget(ctx, w, id, opt) }},
		}
		for _, ch := range changes {
			t.Run(ch.name, func(t *testing.T) {
				m := add(t, s, "Postgres runs on port 5433 "+ch.name)
				shown := m.Version()
				require.NotEmpty(t, shown)
				rd, err := s.Read()
				require.NoError(t, err)
				stored, err := rd.Get(m.ID)
				require.NoError(t, err)
				require.Equal(t, shown, stored.Version(), "the same in every reader")

				c.advance(time.Minute)
				_, err = s.Confirm(ctx, Writer{Agent: "codex"}, m.ID) // changed since it was shown
				require.NoError(t, err)
				tip, err := s.Tip()
				require.NoError(t, err)
				_, err = ch.do(m.ID, IfVersion(shown))
				require.ErrorIs(t, err, memerr.ErrChanged)
				for _, bad := range []string{"latest", shown[:8], strings.ToUpper(shown), shown + "0", "\x1b[31m" + shown[:11]} {
					_, err = ch.do(m.ID, IfVersion(bad))
					require.ErrorIs(t, err, memerr.ErrInvalid, "%q is no version", bad)
					require.NotErrorIs(t, err, memerr.ErrChanged)
				}
				after, err := s.Tip()
				require.NoError(t, err)
				require.Equal(t, tip, after, "nothing was written")

				rd, err = s.Read()
				require.NoError(t, err)
				now, err := rd.Get(m.ID)
				require.NoError(t, err)
				_, err = ch.do(m.ID, IfVersion(now.Version()))
				require.NoError(t, err, "at the version read, the change is made")
			})
		}
	})
}

func TestStoreSupersedeBitemporal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		old := add(t, s, "We deploy with Heroku")
		before := c.t
		c.advance(24 * time.Hour)
		repl, err := s.Add(ctx, Writer{Agent: "codex"}, NewMemory{Text: "We deploy with Fly.io", Supersedes: old.ID})
		require.NoError(t, err)
		require.Equal(t, old.ID, repl.Supersedes)

		log, err := s.Log(ctx, 0)
		require.NoError(t, err)
		require.Len(t, log, 2, "supersede is one commit")
		require.Equal(t, opSupersede, log[0].Op)
		require.ElementsMatch(t, []string{repl.ID, old.ID}, log[0].IDs)

		current, err := s.List(Filter{Now: c.t})
		require.NoError(t, err)
		require.Len(t, current, 1)
		require.Equal(t, repl.ID, current[0].ID)

		all, err := s.List(Filter{All: true, Now: c.t})
		require.NoError(t, err)
		require.Len(t, all, 2)

		rd, err := s.Read()
		require.NoError(t, err)
		o, err := rd.Get(old.ID)
		require.NoError(t, err)
		require.Equal(t, repl.ID, o.SupersededBy)
		require.True(t, o.Retired(c.t))
		require.InDelta(t, 0.18, o.EffectiveTrust(c.t), 0.001, "superseded trust x0.2")

		// Valid time: yesterday Heroku was true; today Fly.io is.
		then, err := s.List(Filter{ValidAt: &before, Now: c.t})
		require.NoError(t, err)
		require.Len(t, then, 1)
		require.Equal(t, old.ID, then[0].ID)

		// Transaction time: as of yesterday the store did not know about Fly.io.
		asOf, err := s.List(Filter{AsOf: &before, All: true, Now: c.t})
		require.NoError(t, err)
		require.Len(t, asOf, 1)
		require.Equal(t, "We deploy with Heroku", asOf[0].Text)
		require.Nil(t, asOf[0].ValidTo)

		_, err = s.Add(ctx, Writer{}, NewMemory{Text: "We deploy with Render", Supersedes: old.ID})
		require.ErrorIs(t, err, memerr.ErrRetired)
	})
}

func TestStoreForgetKeepsHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		m := add(t, s, "Staging is at staging.example.com")
		keep := add(t, s, "CI runs on GitHub Actions")
		_, err := s.Forget(ctx, Writer{Agent: "cli"}, m.ID)
		require.NoError(t, err)
		rd, err := s.Read()
		require.NoError(t, err)
		_, err = rd.Get(m.ID)
		require.ErrorIs(t, err, memerr.ErrNotFound)
		_, err = rd.Get(keep.ID)
		require.NoError(t, err)
		hist, err := s.History(ctx, m.ID)
		require.NoError(t, err)
		require.Len(t, hist, 2)
		require.Equal(t, opForget, hist[0].Op)
		require.Nil(t, hist[0].Memory)
		require.Equal(t, "Staging is at staging.example.com", hist[1].Memory.Text)
		_, err = s.Forget(ctx, Writer{}, m.ID)
		require.ErrorIs(t, err, memerr.ErrNotFound)
	})
}

func TestStoreTrustEvents(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		m, err := s.Add(ctx, Writer{Agent: "claude-code"}, NewMemory{Text: "Tests need TZ=UTC", Source: SourceInferred})
		require.NoError(t, err)
		require.Equal(t, 0.5, m.EffectiveTrust(c.t))
		m, err = s.Confirm(ctx, Writer{Agent: "codex"}, m.ID)
		require.NoError(t, err)
		require.InDelta(t, 0.65, m.EffectiveTrust(c.t), 0.001)
		m, err = s.Dispute(ctx, Writer{Agent: "codex"}, m.ID, "fails on CI")
		require.NoError(t, err)
		require.InDelta(t, 0.39, m.EffectiveTrust(c.t), 0.001)
		require.Equal(t, "fails on CI", m.Events[1].Reason)
	})
}

func TestStoreAmbiguousPrefix(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		for _, id := range []string{"abcd000000000001", "abcd000000000002", "abce000000000003"} {
			_, err := s.Update(ctx, Writer{}, func(tx *Tx) error {
				tx.Put(&Memory{ID: id, Type: TypeFact, Text: "memory " + id, Source: SourceUser, Trust: 0.9, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
				tx.Describe(OpAdd, "seed", id)
				return nil
			})
			require.NoError(t, err)
		}
		set := NewSet(s.Repo)
		_, _, err := set.Find("abcd")
		var amb *AmbiguousError
		require.ErrorAs(t, err, &amb)
		require.Len(t, amb.Candidates, 2)
		require.Contains(t, err.Error(), "abcd000000000001")
		require.ErrorIs(t, err, memerr.ErrInvalid)

		_, m, err := set.Find("ABCE")
		require.NoError(t, err)
		require.Equal(t, "abce000000000003", m.ID)

		_, _, err = set.Find("ffff")
		require.ErrorIs(t, err, memerr.ErrNotFound)
		_, _, err = set.Find("ab")
		require.ErrorIs(t, err, memerr.ErrInvalid, "too short")
		_, _, err = set.Find("zzzz")
		require.ErrorIs(t, err, memerr.ErrInvalid, "not hex")

		rd, err := s.Read()
		require.NoError(t, err)
		require.Equal(t, "abcd0000000000", rd.ShortID("abcd000000000001")[:14])
		require.Equal(t, "abce00", rd.ShortID("abce000000000003"))
	})
}

func TestStoreRejectsBadInputAndWritesNothing(t *testing.T) {
	cases := []struct {
		name string
		in   NewMemory
		want string
	}{
		{"empty", NewMemory{Text: ""}, "empty"},
		{"whitespace", NewMemory{Text: " \n\t "}, "empty"},
		{"too long", NewMemory{Text: strings.Repeat("x", MaxTextBytes+1)}, "split it"},
		{"invalid utf8", NewMemory{Text: "caf\xe9"}, "UTF-8"},
		{"nul", NewMemory{Text: "a\x00b"}, "NUL"},
		{"control", NewMemory{Text: "bell\x07"}, "control character"},
		{"unknown type", NewMemory{Text: "x", Type: "rumour"}, "unknown type"},
		{"unknown source", NewMemory{Text: "x", Source: "gossip"}, "unknown source"},
		{"bad tag", NewMemory{Text: "x", Tags: []string{"a b"}}, "tag"},
		{"path outside", NewMemory{Text: "x", Paths: []string{"../etc/passwd"}}, "outside the repository"},
		{"absolute path", NewMemory{Text: "x", Paths: []string{"/etc/passwd"}}, "outside the repository"},
	}
	secrets := []struct {
		name, text, want string
	}{
		{"github token", "deploy with GITHUB_TOKEN=ghp_R7kq2VbX9mZp4LwT8sYc1NdF6hJg3QeA5uKo", "GitHub token at byte"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----", "private key"},
		{"connection string", "prod db is postgres://app:S3cr3tPassw0rd@db.internal:5432/app", "at byte"},
	}
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Add(context.Background(), Writer{}, tc.in)
				require.ErrorIs(t, err, memerr.ErrInvalid)
				require.Contains(t, err.Error(), tc.want)
				tip, err := s.Tip()
				require.NoError(t, err)
				require.True(t, tip.IsZero(), "nothing written")
			})
		}
		for _, tc := range secrets {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Add(context.Background(), Writer{}, NewMemory{Text: tc.text})
				require.ErrorIs(t, err, memerr.ErrSecret)
				require.Contains(t, err.Error(), tc.want)
				require.NotContains(t, err.Error(), "S3cr3t", "the error never repeats the secret")
				tip, err := s.Tip()
				require.NoError(t, err)
				require.True(t, tip.IsZero(), "nothing written")
			})
		}
		_, err := s.Add(context.Background(), Writer{}, NewMemory{Text: "x", Supersedes: "0123456789abcdef"})
		require.ErrorIs(t, err, memerr.ErrNotFound)
		m := add(t, s, "harmless")
		_, err = s.Revise(context.Background(), Writer{}, m.ID, "token: ghp_R7kq2VbX9mZp4LwT8sYc1NdF6hJg3QeA5uKo")
		require.ErrorIs(t, err, memerr.ErrSecret)
	})
}

func TestStoreMaxTextAccepted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		text := strings.Repeat("é", MaxTextBytes/2)
		m := add(t, s, text)
		rd, err := s.Read()
		require.NoError(t, err)
		got, err := rd.Get(m.ID)
		require.NoError(t, err)
		require.Equal(t, text, got.Text)
	})
}

func TestStoreVerbatimText(t *testing.T) {
	texts := []string{"--not-a-flag", `quotes " and \ backslash`, "<html> & stuff", "line one\nline two", "emoji 🚀 and 日本語"}
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		for _, text := range texts {
			m := add(t, s, text)
			rd, err := s.Read()
			require.NoError(t, err)
			got, err := rd.Get(m.ID)
			require.NoError(t, err)
			require.Equal(t, text, got.Text)
		}
	})
}

func TestStorePurge(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		keep := add(t, s, "CI runs on GitHub Actions")
		c.advance(time.Second)
		secret, err := s.Add(ctx, Writer{}, NewMemory{Text: "the staging password is hunter2-purge-me", AllowSecret: true})
		require.NoError(t, err)
		c.advance(time.Second)
		_, err = s.Revise(ctx, Writer{}, secret.ID, "the staging password is hunter3-purge-me", AllowSecret())
		require.NoError(t, err)
		c.advance(time.Second)
		after := add(t, s, "Use pnpm, not npm")

		rep, err := s.Repo.Purge(ctx, secret.ID)
		require.NoError(t, err)
		require.Equal(t, []string{RefMain}, rep.Refs)
		require.Equal(t, 2, rep.Dropped)
		require.ElementsMatch(t, []string{"the staging password is hunter2-purge-me", "the staging password is hunter3-purge-me"}, rep.Texts)

		log, err := s.Log(ctx, 0)
		require.NoError(t, err)
		require.Len(t, log, 3, "the two other memories' commits and the purge's tombstone")
		require.Equal(t, "mem: purge "+Clip(secret.ID, MinShownPrefix)+" [purged]", log[0].Subject)
		stones, err := s.Repo.sortedTombstones(log[0].Commit)
		require.NoError(t, err)
		require.Equal(t, []string{secret.ID}, stones)
		for _, ch := range log {
			require.NotContains(t, ch.Subject, "hunter")
		}
		list, err := s.List(Filter{All: true, Now: c.t})
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.ElementsMatch(t, []string{keep.ID, after.ID}, []string{list[0].ID, list[1].ID})
		hist, err := s.History(ctx, secret.ID)
		require.NoError(t, err)
		require.Empty(t, hist)

		_, err = s.Repo.Purge(ctx, secret.ID)
		require.ErrorIs(t, err, memerr.ErrNotFound)
	})
}

func TestStoreCorruptObject(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	m := add(t, s, "A memory whose blob will vanish")
	blob := gittest.Run(t, dir, "rev-parse", "refs/memory/main:"+memoryPath(m.ID))
	blob = strings.TrimSpace(blob)
	gitstoretest.Damaged(dir)
	require.NoError(t, os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])))

	rd, err := s.Read()
	require.NoError(t, err)
	_, err = rd.Get(m.ID)
	require.ErrorIs(t, err, memerr.ErrCorrupt)
	require.Contains(t, err.Error(), "git fsck")
	_, err = s.List(Filter{})
	require.ErrorIs(t, err, memerr.ErrCorrupt)

	// A garbage ref is reported, not followed.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "memory", "main"), []byte("garbage\n"), 0o644))
	_, err = s.Tip()
	require.ErrorIs(t, err, memerr.ErrCorrupt)
}

func TestDiskStoreIsValidGit(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	c := newClock()
	s := storeOn(r, c)
	ctx := context.Background()
	a := add(t, s, "First memory")
	b := add(t, s, "Second memory")
	_, err = s.Revise(ctx, Writer{Agent: "codex"}, a.ID, "First memory, revised")
	require.NoError(t, err)
	_, err = s.Forget(ctx, Writer{}, b.ID)
	require.NoError(t, err)

	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
	log := gittest.Run(t, dir, "log", "--format=%s%n%(trailers:key=Memory-Op,valueonly)", "refs/memory/main")
	require.Contains(t, log, "mem: revise "+a.ID[:6]+" fact: First memory, revised")
	require.Contains(t, log, "mem: forget "+b.ID[:6])
	doc := gittest.Run(t, dir, "cat-file", "-p", "refs/memory/main:"+memoryPath(a.ID))
	require.True(t, strings.HasPrefix(doc, `{"schema":1,"id":"`+a.ID+`","type":"fact","text":"First memory, revised"`), doc)
	require.True(t, strings.HasSuffix(doc, "}\n"))
	require.Equal(t, "Test User <test@example.com>", strings.TrimSpace(gittest.Run(t, dir, "log", "-1", "--format=%an <%ae>", "refs/memory/main")))
}

func TestDiskStorePackedRefs(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	add(t, s, "before packing")
	gittest.Run(t, dir, "pack-refs", "--all")
	_, err = os.Stat(filepath.Join(dir, ".git", "refs", "memory", "main"))
	require.ErrorIs(t, err, os.ErrNotExist, "the ref now lives only in packed-refs")
	add(t, s, "after packing")
	list, err := s.List(Filter{})
	require.NoError(t, err)
	require.Len(t, list, 2)
	gittest.Run(t, dir, "fsck", "--strict")

	// A stale packed value must not be taken for the current one.
	gittest.Run(t, dir, "pack-refs", "--all")
	add(t, s, "third")
	tip := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "refs/memory/main"))
	got, err := s.Tip()
	require.NoError(t, err)
	require.Equal(t, tip, got.String())
}

func TestDiskStoreWorktreeBareAndUnborn(t *testing.T) {
	ctx := context.Background()
	t.Run("unborn HEAD", func(t *testing.T) {
		dir := gitInit(t)
		r, err := Open(dir)
		require.NoError(t, err)
		require.Equal(t, Anchor{Branch: "main"}, r.Head())
		add(t, storeOn(r, newClock()), "written before the first commit")
		gittest.Run(t, dir, "fsck", "--strict")
	})
	t.Run("detached HEAD", func(t *testing.T) {
		dir := gitInit(t)
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
		head := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
		gittest.Run(t, dir, "checkout", "-q", "--detach")
		r, err := Open(filepath.Join(dir))
		require.NoError(t, err)
		require.Equal(t, Anchor{Commit: head}, r.Head())
	})
	t.Run("linked worktree", func(t *testing.T) {
		dir := gitInit(t)
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
		wt := filepath.Join(t.TempDir(), "wt")
		gittest.Run(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
		sub := filepath.Join(wt, "pkg")
		require.NoError(t, os.MkdirAll(sub, 0o755))
		r, err := Open(sub)
		require.NoError(t, err)
		require.Equal(t, "feature", r.Head().Branch)
		head := r.Head()
		m, err := storeOn(r, newClock()).Add(ctx, Writer{}, NewMemory{Text: "written from a linked worktree", Anchor: &head})
		require.NoError(t, err)

		main, err := Open(dir)
		require.NoError(t, err)
		rd, err := NewStore(main, RefMain, ScopeProject).Read()
		require.NoError(t, err)
		got, err := rd.Get(m.ID)
		require.NoError(t, err)
		require.Equal(t, "feature", got.Anchor.Branch)
		require.Contains(t, gittest.Run(t, dir, "cat-file", "-p", "refs/memory/main:"+memoryPath(m.ID)), "written from a linked worktree")
	})
	t.Run("bare", func(t *testing.T) {
		dir := t.TempDir()
		gittest.Run(t, dir, "init", "-q", "--bare")
		gitstoretest.CheckedByGit(t, dir)
		r, err := Open(dir)
		require.NoError(t, err)
		require.Empty(t, r.WorkTree)
		m := add(t, storeOn(r, newClock()), "a bare repository holds memory too")
		out := gittest.Run(t, dir, "cat-file", "-p", "refs/memory/main:"+memoryPath(m.ID))
		require.Contains(t, out, "a bare repository holds memory too")
		_, err = NewStore(r, RefMain, ScopeProject).Log(ctx, 1)
		require.NoError(t, err)
	})
	t.Run("no repository", func(t *testing.T) {
		_, err := Open(t.TempDir())
		require.ErrorIs(t, err, memerr.ErrNoRepo)
	})
}

func TestStaleLockIsBroken(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	add(t, s, "first")
	lock := filepath.Join(dir, ".git", "refs", "memory", "main.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(lock, old, old))
	add(t, s, "second, after a writer died holding the lock")
	_, err = os.Stat(lock)
	require.ErrorIs(t, err, os.ErrNotExist)

	// A fresh lock is respected: the write waits, then reports the ref busy.
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	r.refs.db.(*gitrefs.Disk).LockTimeout = 50 * time.Millisecond
	_, err = s.Add(context.Background(), Writer{}, NewMemory{Text: "third"})
	require.ErrorIs(t, err, memerr.ErrBusy)
	require.Contains(t, err.Error(), "main.lock")
}

func TestUpdateRebuildsOnMovedRef(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		other := NewStore(s.Repo, RefMain, ScopeProject)
		calls := 0
		var sneaked *Memory
		_, err := s.Update(ctx, Writer{}, func(tx *Tx) error {
			calls++
			if calls == 1 {
				// Another writer lands first: this attempt must be rebuilt on its commit.
				sneaked = add(t, other, "sneaked in")
			}
			tx.Put(&Memory{ID: "00aa00aa00aa00aa", Type: TypeFact, Text: "mine", Source: SourceUser, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
			tx.Describe(OpAdd, "mine", "00aa00aa00aa00aa")
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 2, calls)
		list, err := s.List(Filter{})
		require.NoError(t, err)
		require.Len(t, list, 2)
		rd, err := s.Read()
		require.NoError(t, err)
		_, err = rd.Get(sneaked.ID)
		require.NoError(t, err)
	})
}

func TestDiffBetweenCommits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store, c *clock) {
		ctx := context.Background()
		a := add(t, s, "one")
		b := add(t, s, "two")
		from, err := s.Tip()
		require.NoError(t, err)
		_, err = s.Revise(ctx, Writer{}, a.ID, "one, revised")
		require.NoError(t, err)
		_, err = s.Forget(ctx, Writer{}, b.ID)
		require.NoError(t, err)
		d := add(t, s, "three")
		to, err := s.Tip()
		require.NoError(t, err)
		changed, removed, err := s.Diff(from, to)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{a.ID, d.ID}, changed)
		require.Equal(t, []string{b.ID}, removed)
		ok, err := s.IsAncestor(ctx, from, to)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = s.IsAncestor(ctx, to, from)
		require.NoError(t, err)
		require.False(t, ok)
		changed, _, err = s.Diff(zeroHash, to)
		require.NoError(t, err)
		require.Len(t, changed, 2)
	})
}

func TestCanonicalEncoding(t *testing.T) {
	m := &Memory{ID: "0123456789abcdef", Type: TypeFact, Text: "a <b> & \"c\"", Source: SourceUser, Trust: 0.9,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))}
	m.Updated, m.ValidFrom = m.Created, m.Created
	data, err := m.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"schema":1,"id":"0123456789abcdef","type":"fact","text":"a <b> & \"c\"","source":"user","trust":0.9,"created":"2026-01-02T02:04:05Z","updated":"2026-01-02T02:04:05Z","valid_from":"2026-01-02T02:04:05Z"}`+"\n", string(data))
	back, err := DecodeMemory(data)
	require.NoError(t, err)
	again, err := back.Encode()
	require.NoError(t, err)
	require.Equal(t, data, again, "encoding is stable")

	_, err = DecodeMemory([]byte(`{"schema":2,"id":"0123456789abcdef"}`))
	require.ErrorContains(t, err, "upgrade git-mem")
	_, err = DecodeMemory([]byte(`{"schema":1,"id":"../../etc"}`))
	require.Error(t, err)
	_, err = DecodeMemory([]byte(`not json`))
	require.True(t, err != nil && !errors.Is(err, memerr.ErrNotFound))
}

// eachFanChange walks two fan-out trees' entries once, in id order, and
// reports every id whose document differs, with its blob on each side.
func TestEachFanChange(t *testing.T) {
	h := func(b byte) Hash { return Hash{b} }
	e := func(id string, b byte) treeEntry {
		return treeEntry{Name: id + ".json", Mode: gitobj.ModeRegular, Hash: h(b)}
	}
	tree := func(es ...treeEntry) *gitTree { return &gitTree{Entries: es} }
	const a, b, c, d = "ab00000000000001", "ab00000000000002", "ab00000000000003", "ab00000000000004"
	tests := []struct {
		name     string
		old, cur *gitTree
		want     []string
	}{
		{"both absent", nil, nil, nil},
		{"a new fan", nil, tree(e(a, 1), e(b, 2)), []string{a + " 0 1", b + " 0 2"}},
		{"a removed fan", tree(e(a, 1)), nil, []string{a + " 1 0"}},
		{"unchanged", tree(e(a, 1), e(b, 2)), tree(e(a, 1), e(b, 2)), nil},
		{"added, changed, removed", tree(e(a, 1), e(b, 2), e(d, 4)), tree(e(b, 5), e(c, 3), e(d, 4)), []string{a + " 1 0", b + " 2 5", c + " 0 3"}},
		{"a document turned into a directory", tree(e(a, 1)), tree(treeEntry{Name: a + ".json", Mode: gitobj.ModeDir, Hash: h(2)}), []string{a + " 1 0"}},
		{"names that are no memory", tree(treeEntry{Name: "README", Mode: gitobj.ModeRegular, Hash: h(9)}, e(a, 1)), tree(e(a, 1), treeEntry{Name: "zz.json", Mode: gitobj.ModeRegular, Hash: h(8)}), nil},
	}
	for _, tc := range tests {
		var got []string
		err := eachFanChange("ab", tc.old, tc.cur, func(id string, was, is Hash) error {
			got = append(got, fmt.Sprintf("%s %d %d", id, was[0], is[0]))
			return nil
		})
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

// sortedTombstones lists the ids purged according to the tree of commit, sorted.
func (r *Repo) sortedTombstones(commit Hash) ([]string, error) {
	set, err := r.tombstones(commit)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}
