package gitstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mtRefTheirs is the ref the "other clone" writes to in the merge tests.
const mtRefTheirs = "refs/memory/remotes/them/main"

// mtFixture is one repository with two memory refs that share a base: ours
// (refs/memory/main) and theirs, as after a fetch.
type mtFixture struct {
	t            *testing.T
	repo         *Repo
	ours, theirs *Store
	now          time.Time
}

func newMergeFixture(t *testing.T) *mtFixture {
	t.Setenv("GIT_AUTHOR_NAME", "Ann Ours")
	t.Setenv("GIT_AUTHOR_EMAIL", "ann@example.com")
	f := &mtFixture{t: t, repo: NewMemoryRepo(), now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	f.repo.Now = func() time.Time { return f.now }
	f.ours = NewStore(f.repo, RefMain, ScopeProject)
	f.theirs = NewStore(f.repo, mtRefTheirs, ScopeProject)
	return f
}

func (f *mtFixture) tick() { f.now = f.now.Add(time.Minute) }

// add saves a memory on a side, one minute later than the last write.
func (f *mtFixture) add(s *Store, text string) *Memory {
	f.t.Helper()
	f.tick()
	m, err := s.Add(context.Background(), Writer{Agent: "claude-code", Session: "s"}, NewMemory{Text: text})
	require.NoError(f.t, err)
	return m
}

// branch makes theirs start where ours is: the merge base.
func (f *mtFixture) branch() Hash {
	f.t.Helper()
	tip, err := f.ours.Tip()
	require.NoError(f.t, err)
	old, err := f.theirs.Tip()
	require.NoError(f.t, err)
	require.NoError(f.t, f.repo.refs.update(mtRefTheirs, tip, old))
	return tip
}

func (f *mtFixture) merge() *MergeResult {
	f.t.Helper()
	theirs, err := f.theirs.Tip()
	require.NoError(f.t, err)
	res, err := f.ours.merge(context.Background(), Writer{Agent: "cli"}, theirs, mergeOptions{From: "them", TheirRef: mtRefTheirs})
	require.NoError(f.t, err)
	return res
}

func (f *mtFixture) get(s *Store, id string) *Memory {
	f.t.Helper()
	rd, err := s.Read()
	require.NoError(f.t, err)
	m, err := rd.Get(id)
	require.NoError(f.t, err)
	return m
}

func (f *mtFixture) has(s *Store, id string) bool {
	f.t.Helper()
	rd, err := s.Read()
	require.NoError(f.t, err)
	ids, err := rd.resolve(id)
	require.NoError(f.t, err)
	return len(ids) == 1
}

func (f *mtFixture) treeOf(h Hash) Hash {
	f.t.Helper()
	c, err := f.repo.readCommit(h)
	require.NoError(f.t, err)
	return Hash(c.TreeHash)
}

// mergeSwapped merges ours into a copy of theirs and returns the tree, to
// check that the result does not depend on which side is ours.
func (f *mtFixture) mergeSwapped(ours, theirs Hash) Hash {
	f.t.Helper()
	const ref = "refs/memory/swapped"
	require.NoError(f.t, f.repo.refs.update(ref, theirs, zeroHash))
	res, err := NewStore(f.repo, ref, ScopeProject).merge(context.Background(), Writer{}, ours, mergeOptions{})
	require.NoError(f.t, err)
	return f.treeOf(res.Commit)
}

func TestMergeCases(t *testing.T) {
	ctx := context.Background()
	w := Writer{Agent: "codex", Session: "t"}
	type ids map[string]string
	cases := []struct {
		name string
		// setup writes the base, calls f.branch(), then writes each side; it
		// returns named ids for check.
		setup func(f *mtFixture) ids
		kind  MergeKind
		check func(t *testing.T, f *mtFixture, res *MergeResult, id ids)
	}{
		{
			name: "different memories are united",
			setup: func(f *mtFixture) ids {
				base := f.add(f.ours, "base fact")
				f.branch()
				a := f.add(f.ours, "ours only")
				b := f.add(f.theirs, "theirs only")
				return ids{"base": base.ID, "a": a.ID, "b": b.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["b"]}, res.New)
				require.Equal(t, []string{id["a"]}, res.Local)
				for _, k := range []string{"base", "a", "b"} {
					require.True(t, f.has(f.ours, id[k]), k)
				}
			},
		},
		{
			name: "changed on both sides: trust events united and sorted",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "the API listens on port 8080")
				f.branch()
				f.tick()
				_, err := f.ours.Confirm(ctx, w, m.ID)
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Dispute(ctx, w, m.ID, "saw 8081 in staging")
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["m"]}, res.Merged)
				m := f.get(f.ours, id["m"])
				require.Len(t, m.Events, 2)
				require.Equal(t, EventConfirm, m.Events[0].Op)
				require.Equal(t, EventDispute, m.Events[1].Op)
				require.Equal(t, "the API listens on port 8080", m.Text)
			},
		},
		{
			name: "revised on both sides: the later text wins, both stay in history",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "deploy with make deploy")
				f.branch()
				f.tick()
				_, err := f.ours.Revise(ctx, w, m.ID, "deploy with make release")
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Revise(ctx, w, m.ID, "deploy with ./scripts/deploy.sh")
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, "deploy with ./scripts/deploy.sh", f.get(f.ours, id["m"]).Text)
				hist, err := f.ours.History(ctx, id["m"])
				require.NoError(t, err)
				texts := map[string]bool{}
				for _, v := range hist {
					if v.Memory != nil {
						texts[v.Memory.Text] = true
					}
				}
				require.True(t, texts["deploy with make release"], "our revision stays in history")
				require.True(t, texts["deploy with ./scripts/deploy.sh"])
				require.True(t, texts["deploy with make deploy"])
			},
		},
		{
			name: "revised on one side, confirmed later on the other: the revision is kept",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "tests need docker")
				f.branch()
				f.tick()
				_, err := f.ours.Revise(ctx, w, m.ID, "tests need docker or podman")
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Confirm(ctx, w, m.ID)
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				m := f.get(f.ours, id["m"])
				require.Equal(t, "tests need docker or podman", m.Text)
				require.Len(t, m.Events, 1)
				require.Equal(t, EventConfirm, m.Events[0].Op)
			},
		},
		{
			name: "reinforced on both sides: dates united, one a day",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "use pnpm, not npm")
				f.branch()
				f.now = f.now.Add(24 * time.Hour)
				_, err := f.ours.Reinforce(ctx, w, m.ID)
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Reinforce(ctx, Writer{Agent: "gemini"}, m.ID) // same day
				require.NoError(t, err)
				f.now = f.now.Add(24 * time.Hour)
				_, err = f.theirs.Reinforce(ctx, Writer{Agent: "gemini"}, m.ID) // next day
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				m := f.get(f.ours, id["m"])
				require.Len(t, m.Reinforced, 2, "one date per day")
				require.Len(t, m.Events, 3, "every reinforce event from both agents")
			},
		},
		{
			name: "superseded on one side, revised on the other: stays superseded",
			setup: func(f *mtFixture) ids {
				old := f.add(f.ours, "we deploy to Heroku")
				f.branch()
				f.tick()
				nw, err := f.ours.Add(ctx, w, NewMemory{Text: "we deploy to Fly.io", Supersedes: old.ID})
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Revise(ctx, w, old.ID, "we deploy to Heroku (EU region)")
				require.NoError(t, err)
				return ids{"old": old.ID, "new": nw.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				old := f.get(f.ours, id["old"])
				require.NotNil(t, old.ValidTo, "valid_to stays closed")
				require.Equal(t, id["new"], old.SupersededBy)
				require.Equal(t, "we deploy to Heroku (EU region)", old.Text, "their later revision is kept as the text")
				require.True(t, old.Retired(f.now))
				require.True(t, f.has(f.ours, id["new"]))
			},
		},
		{
			name: "forgotten there, unchanged here: forgotten",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "temporary note")
				keep := f.add(f.ours, "keep me")
				f.branch()
				f.tick()
				_, err := f.theirs.Forget(ctx, w, m.ID)
				require.NoError(t, err)
				f.add(f.ours, "something else here")
				return ids{"m": m.ID, "keep": keep.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["m"]}, res.Removed)
				require.Empty(t, res.Revived, "a forgotten memory is not reported as kept")
				require.False(t, f.has(f.ours, id["m"]))
				require.True(t, f.has(f.ours, id["keep"]))
			},
		},
		{
			name: "forgotten here, unchanged there: stays forgotten",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "temporary note")
				f.branch()
				f.tick()
				_, err := f.ours.Forget(ctx, w, m.ID)
				require.NoError(t, err)
				f.add(f.theirs, "theirs adds something")
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["m"]}, res.Forgotten)
				require.False(t, f.has(f.ours, id["m"]))
			},
		},
		{
			name: "forgotten there, revised here: kept, and the merge says so",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "the cache is flushed nightly")
				f.branch()
				f.tick()
				_, err := f.theirs.Forget(ctx, w, m.ID)
				require.NoError(t, err)
				f.tick()
				_, err = f.ours.Revise(ctx, w, m.ID, "the cache is flushed hourly")
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["m"]}, res.Revived)
				require.Equal(t, "the cache is flushed hourly", f.get(f.ours, id["m"]).Text)
				c, err := f.repo.readCommit(res.Commit)
				require.NoError(t, err)
				require.Contains(t, c.Message, "Kept although forgotten on one side")
				require.Contains(t, c.Message, trailerID+": "+id["m"])
			},
		},
		{
			name: "forgotten here, confirmed there: kept",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "staging db is shared")
				f.branch()
				f.tick()
				_, err := f.ours.Forget(ctx, w, m.ID)
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Confirm(ctx, w, m.ID)
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, []string{id["m"]}, res.Revived)
				require.Len(t, f.get(f.ours, id["m"]).Events, 1)
			},
		},
		{
			name: "forgotten on both sides: gone",
			setup: func(f *mtFixture) ids {
				m := f.add(f.ours, "obsolete")
				f.branch()
				f.tick()
				_, err := f.ours.Forget(ctx, w, m.ID)
				require.NoError(t, err)
				f.tick()
				_, err = f.theirs.Forget(ctx, Writer{Agent: "other"}, m.ID)
				require.NoError(t, err)
				return ids{"m": m.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.False(t, f.has(f.ours, id["m"]))
				require.Zero(t, res.incoming())
			},
		},
		{
			name: "ours behind: fast-forward",
			setup: func(f *mtFixture) ids {
				f.add(f.ours, "base")
				f.branch()
				b := f.add(f.theirs, "new there")
				return ids{"b": b.ID}
			},
			kind: MergeFastForward,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				tip, _ := f.ours.Tip()
				theirs, _ := f.theirs.Tip()
				require.Equal(t, theirs, tip)
				require.Equal(t, []string{id["b"]}, res.New)
			},
		},
		{
			name: "ours empty: fast-forward",
			setup: func(f *mtFixture) ids {
				b := f.add(f.theirs, "only there")
				return ids{"b": b.ID}
			},
			kind: MergeFastForward,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.True(t, f.has(f.ours, id["b"]))
			},
		},
		{
			name: "theirs already contained: up to date",
			setup: func(f *mtFixture) ids {
				f.add(f.ours, "base")
				f.branch()
				f.add(f.ours, "more here")
				return ids{}
			},
			kind: MergeUpToDate,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Equal(t, res.ours, res.Commit)
			},
		},
		{
			name: "unrelated histories: united",
			setup: func(f *mtFixture) ids {
				a := f.add(f.ours, "ours from scratch")
				b := f.add(f.theirs, "theirs from scratch")
				return ids{"a": a.ID, "b": b.ID}
			},
			kind: mergeCommitted,
			check: func(t *testing.T, f *mtFixture, res *MergeResult, id ids) {
				require.Empty(t, res.bases)
				require.True(t, f.has(f.ours, id["a"]))
				require.True(t, f.has(f.ours, id["b"]))
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newMergeFixture(t)
			id := tc.setup(f)
			oursBefore, _ := f.ours.Tip()
			theirs, _ := f.theirs.Tip()
			res := f.merge()
			require.Equal(t, tc.kind, res.Kind)
			tc.check(t, f, res, id)
			if res.Kind != mergeCommitted {
				return
			}
			c, err := f.repo.readCommit(res.Commit)
			require.NoError(t, err)
			require.Equal(t, []Hash{oursBefore, theirs}, c.ParentHashes, "ours first")
			require.Contains(t, c.Message, trailerOp+": "+opMerge)
			require.True(t, strings.HasPrefix(c.Message, "mem: merge them: "), c.Message)
			oc, _ := f.repo.readCommit(oursBefore)
			tc2, _ := f.repo.readCommit(theirs)
			want := oc.Committer.When
			if tc2.Committer.When.After(want) {
				want = tc2.Committer.When
			}
			require.True(t, c.Committer.When.Equal(want), "merge time is the later tip's")
			// Deterministic: merging the other way round gives the same tree.
			require.Equal(t, Hash(c.TreeHash), f.mergeSwapped(oursBefore, theirs))
			// Merging again is a no-op.
			again := f.merge()
			require.Equal(t, MergeUpToDate, again.Kind)
		})
	}
}

func TestMergeKeepsTeammatesAuthorAndAgent(t *testing.T) {
	f := newMergeFixture(t)
	f.add(f.ours, "base")
	f.branch()
	t.Setenv("GIT_AUTHOR_NAME", "Bob Theirs")
	t.Setenv("GIT_AUTHOR_EMAIL", "bob@example.com")
	f.tick()
	bob, err := f.theirs.Add(context.Background(), Writer{Agent: "codex", Session: "bob-1"}, NewMemory{Text: "bob's finding"})
	require.NoError(t, err)
	t.Setenv("GIT_AUTHOR_NAME", "Ann Ours")
	t.Setenv("GIT_AUTHOR_EMAIL", "ann@example.com")
	f.add(f.ours, "ann's finding")
	res := f.merge()
	require.Equal(t, mergeCommitted, res.Kind)
	m := f.get(f.ours, bob.ID)
	require.Equal(t, "Bob Theirs <bob@example.com>", m.Author)
	require.Equal(t, "codex", m.Agent)
	require.Equal(t, "bob-1", m.Session)
	hist, err := f.ours.History(context.Background(), bob.ID)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	require.Equal(t, "Bob Theirs <bob@example.com>", hist[0].Author, "the add commit keeps its author")
	require.Equal(t, "codex", hist[0].Agent)
	c, _ := f.repo.readCommit(res.Commit)
	require.Equal(t, "Ann Ours", c.Author.Name, "the merge commit is the merger's")
}

func TestMergeMemoryIsCommutative(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := t0.Add(time.Hour)
	base := &Memory{Schema: 1, ID: "0123456789abcdef", Type: TypeFact, Text: "x", Source: SourceUser, Trust: 0.9,
		Agent: "claude-code", Author: "A <a@x>", Created: t0, Updated: t0, ValidFrom: t0}
	a := *base
	a.Text, a.Updated = "x from a", t0.Add(2*time.Minute)
	a.Events = []Event{{Op: EventConfirm, At: t0.Add(2 * time.Minute), Agent: "a"}}
	b := *base
	b.Updated = t0.Add(3 * time.Minute)
	b.ValidTo, b.SupersededBy = &end, "fedcba9876543210"
	b.Events = []Event{{Op: EventSupersede, At: t0.Add(3 * time.Minute), Agent: "b"}, {Op: EventConfirm, At: t0.Add(2 * time.Minute), Agent: "a"}}
	b.Reinforced = []time.Time{t0, t0.Add(time.Hour)}
	ab, err := mergeMemory(base, &a, &b)
	require.NoError(t, err)
	ba, err := mergeMemory(base, &b, &a)
	require.NoError(t, err)
	x, _ := ab.Encode()
	y, _ := ba.Encode()
	require.Equal(t, string(x), string(y))
	require.Equal(t, "x from a", ab.Text, "only a changed the text")
	require.Len(t, ab.Events, 2, "the shared confirm is deduplicated")
	require.Len(t, ab.Reinforced, 1, "one reinforcement a day")
	require.Equal(t, "fedcba9876543210", ab.SupersededBy)
	require.True(t, ab.ValidTo.Equal(end))
	// Both changed the text with the same update time: decided by the bytes, either way round.
	a2, b2 := *base, *base
	a2.Text, b2.Text = "left", "right"
	a2.Updated, b2.Updated = t0.Add(time.Minute), t0.Add(time.Minute)
	m1, _ := mergeMemory(base, &a2, &b2)
	m2, _ := mergeMemory(base, &b2, &a2)
	require.Equal(t, m1.Text, m2.Text)
}

func TestMergeLeavesOutPurgedMemories(t *testing.T) {
	ctx := context.Background()
	for _, diverged := range []bool{false, true} {
		t.Run(fmt.Sprintf("diverged=%v", diverged), func(t *testing.T) {
			f := newMergeFixture(t)
			f.add(f.ours, "base")
			f.branch()
			secret := f.add(f.theirs, "a memory purged here by mistake")
			other := f.add(f.theirs, "a fine memory")
			if diverged {
				f.add(f.ours, "ours moved on")
			}
			theirs, _ := f.theirs.Tip()
			res, err := f.ours.merge(ctx, Writer{}, theirs, mergeOptions{From: "them", Drop: []string{secret.ID, "not-an-id"}})
			require.NoError(t, err)
			require.Equal(t, mergeCommitted, res.Kind, "a fast-forward would bring it back")
			require.Equal(t, []string{secret.ID}, res.dropped)
			require.Equal(t, []string{other.ID}, res.New)
			require.False(t, f.has(f.ours, secret.ID))
			require.True(t, f.has(f.ours, other.ID))
			c, err := f.repo.readCommit(res.Commit)
			require.NoError(t, err)
			require.Len(t, c.ParentHashes, 2)
			require.Contains(t, c.Message, "purged here")
			again, err := f.ours.merge(ctx, Writer{}, theirs, mergeOptions{Drop: []string{secret.ID}})
			require.NoError(t, err)
			require.Equal(t, MergeUpToDate, again.Kind)
		})
	}
}
