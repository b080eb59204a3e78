package gitstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/internal/health"
	"github.com/git-mem/git-mem/memerr"
)

// goodDoc is a valid canonical document of the memory with the full id.
func goodDoc(t testing.TB, id string) []byte {
	t.Helper()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	m := &Memory{Schema: SchemaVersion, ID: id, Type: TypeFact, Text: "Bookings are stored in UTC", Tags: []string{"time"},
		Paths: []string{"server/booking.ts"}, Source: SourceUser, Trust: 0.9, Agent: "claude-code", Author: "Ann <ann@example.com>",
		Anchor: &Anchor{Commit: strings.Repeat("ab", 20), Branch: "main"}, Created: at, Updated: at, ValidFrom: at}
	data, err := m.Encode()
	require.NoError(t, err)
	return data
}

// docWith is goodDoc with fields set (nil deletes a field).
func docWith(t testing.TB, id string, set map[string]any) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(goodDoc(t, id), &doc))
	return gitstoretest.Patched(t, doc, set)
}

// badDocs are documents a remote or a hand edit can bring, each invalid.
func badDocs(t testing.TB, id string) []struct {
	name string
	data []byte
	why  string
} {
	return []struct {
		name string
		data []byte
		why  string
	}{
		{"not JSON", []byte(`{"schema":1,"id":"` + id + `",`), "not a JSON memory document"},
		{"schema 2", docWith(t, id, map[string]any{"schema": 2}), "schema 2"},
		{"id differs from its file name", docWith(t, id, map[string]any{"id": "0123456789abcdef"}), "differs from its file name"},
		{"short id", docWith(t, id, map[string]any{"id": "abc"}), "malformed"},
		{"short anchor commit", docWith(t, id, map[string]any{"anchor": map[string]any{"commit": "abc", "branch": "main"}}), "anchor.commit"},
		{"short superseded_by", docWith(t, id, map[string]any{"superseded_by": "abc", "valid_to": "2026-03-02T00:00:00Z"}), "superseded_by"},
		{"short supersedes", docWith(t, id, map[string]any{"supersedes": "a"}), "supersedes"},
		{"text over the limit", docWith(t, id, map[string]any{"text": strings.Repeat("x", MaxTextBytes+1)}), "over the 8192-byte maximum"},
		{"oversized document", docWith(t, id, map[string]any{"padding": strings.Repeat("x", maxDocumentBytes)}), "byte maximum"},
		{"trust is a string", docWith(t, id, map[string]any{"trust": "high"}), "trust"},
		{"trust out of range", docWith(t, id, map[string]any{"trust": 7}), "trust"},
		{"tags is a string", docWith(t, id, map[string]any{"tags": "time"}), "tags"},
		{"too many tags", docWith(t, id, map[string]any{"tags": strings.Split(strings.Repeat("t,", MaxTags+1)+"t", ",")}), "tags, over the maximum"},
		{"tag with ESC", docWith(t, id, map[string]any{"tags": []string{"a\x1b[31m"}}), "tag"},
		{"too many paths", docWith(t, id, map[string]any{"paths": strings.Split(strings.Repeat("p,", maxPaths+1)+"p", ",")}), "paths, over the maximum"},
		{"path too long", docWith(t, id, map[string]any{"paths": []string{strings.Repeat("d/", maxPathBytes)}}), "byte maximum"},
		{"path with ESC", docWith(t, id, map[string]any{"paths": []string{"a\x1b]0;pwned\x07"}}), "control characters"},
		{"agent with ESC", docWith(t, id, map[string]any{"agent": "\x1b[2Jevil"}), "agent"},
		{"unknown type", docWith(t, id, map[string]any{"type": "rumour"}), "unknown type"},
		{"unknown source", docWith(t, id, map[string]any{"source": "dream"}), "unknown source"},
		{"text with ESC", docWith(t, id, map[string]any{"text": "ok \x1b[2J"}), "control character"},
		{"empty text", docWith(t, id, map[string]any{"text": ""}), "empty"},
		{"event with an unknown op", docWith(t, id, map[string]any{"events": []map[string]any{{"op": "bless", "at": "2026-03-01T09:00:00Z"}}}), "unknown op"},
		{"data after the document", append(goodDoc(t, id), []byte(`{"x":1}`)...), "data after"},
		{"a JSON array", []byte("[]\n"), "not a JSON memory document"},
		{"null", []byte("null\n"), "schema 0"},
	}
}

func TestValidateDocument(t *testing.T) {
	id := "3f2a9c41d0e8b7a2"
	m, err := validateDocument(goodDoc(t, id), id)
	require.NoError(t, err)
	require.Equal(t, id, m.ID)
	for _, c := range badDocs(t, id) {
		t.Run(c.name, func(t *testing.T) {
			_, err := validateDocument(c.data, id)
			require.ErrorIs(t, err, memerr.ErrInvalid)
			require.Contains(t, err.Error(), c.why)
			require.NotContains(t, err.Error(), "\x1b", "an error quotes values escaped")
		})
	}
}

// plant commits raw document data as memory id on the store's ref, as a
// hand edit, an older version or a teammate's clone could.
func plant(t testing.TB, s *Store, id string, data []byte) Hash {
	t.Helper()
	tip, err := s.Tip()
	require.NoError(t, err)
	snap, err := s.Repo.snapshotAt(tip)
	require.NoError(t, err)
	tree, err := snap.buildTree(map[string][]byte{id: data})
	require.NoError(t, err)
	var parents []Hash
	if !tip.IsZero() {
		parents = append(parents, tip)
	}
	c, err := s.Repo.writeCommit(tree, parents, "mem: add "+id[:6]+" planted\n\nMemory-Id: "+id+"\nMemory-Op: add\n", s.Repo.Now())
	require.NoError(t, err)
	require.NoError(t, s.Repo.refs.update(s.Ref, c, tip))
	return c
}

// TestStoreSkipsInvalidDocuments: a store holding an invalid document keeps
// working: list skips it (and records it), get refuses it without panicking,
// history shows it, doctor lists it with the fix, forget removes it, and
// add --supersedes refuses it.
func TestStoreSkipsInvalidDocuments(t *testing.T) {
	ctx := context.Background()
	for _, c := range badDocs(t, "3f2a9c41d0e8b7a2") {
		t.Run(c.name, func(t *testing.T) {
			dir := gitInit(t)
			r, err := Open(dir)
			require.NoError(t, err)
			s := storeOn(r, newClock())
			good := add(t, s, "A good memory stays readable")
			bad := "3f2a9c41d0e8b7a2"
			plant(t, s, bad, c.data)

			ms, err := s.List(Filter{All: true})
			require.NoError(t, err)
			require.Len(t, ms, 1)
			require.Equal(t, good.ID, ms[0].ID)
			skipped := r.Skipped()
			require.Len(t, skipped, 1)
			require.Equal(t, bad, skipped[0].ID)
			require.Equal(t, "memories/3f/3f2a9c41d0e8b7a2.json", skipped[0].Path())

			rd, err := s.Read()
			require.NoError(t, err)
			_, err = rd.Get(bad)
			require.ErrorIs(t, err, memerr.ErrBadDocument)
			require.ErrorIs(t, err, memerr.ErrNotFound)
			var de *DocumentError
			require.ErrorAs(t, err, &de)
			require.Equal(t, bad, de.ID, "the error names the document, for each surface to say how to remove it")
			require.NotContains(t, err.Error(), "git mem", "the store names no command")

			set := NewSet(r)
			_, _, err = set.Find("3f2a9c")
			require.ErrorIs(t, err, memerr.ErrBadDocument)
			st, id, err := set.Locate("3f2a9c")
			require.NoError(t, err)
			require.Equal(t, bad, id)

			vs, err := st.History(ctx, bad)
			require.NoError(t, err)
			require.Len(t, vs, 1)
			require.Nil(t, vs[0].Memory)
			require.NotEmpty(t, vs[0].Invalid)

			_, err = s.Add(ctx, Writer{}, NewMemory{Text: "A replacement", Supersedes: bad})
			require.ErrorIs(t, err, memerr.ErrBadDocument)

			var listed bool
			for _, f := range r.CheckMemoryRefs(ctx) {
				if strings.Contains(f.Check, "memories/3f/3f2a9c41d0e8b7a2.json") {
					listed = true
					require.Equal(t, health.Fail, f.Status)
					require.Equal(t, health.FixForget, f.Action)
					require.Equal(t, bad, f.Target)
				}
			}
			require.True(t, listed, "doctor lists the invalid document")

			_, err = st.Forget(ctx, Writer{Agent: "cli"}, bad)
			require.NoError(t, err)
			// the bad document's own prefix: the good memory's random id may
			// share a shorter one
			ids, err := rd.resolve(bad[:6])
			require.NoError(t, err)
			require.Equal(t, []string{bad}, ids, "the old reader still sees it")
			rd, err = s.Read()
			require.NoError(t, err)
			ids, err = rd.resolve(bad[:6])
			require.NoError(t, err)
			require.Empty(t, ids)
			for _, f := range r.CheckMemoryRefs(ctx) {
				require.NotEqual(t, health.Fail, f.Status, f.Message)
			}
		})
	}
}

// TestPurgeInvalidDocument: an invalid document can be purged by its file name.
func TestPurgeInvalidDocument(t *testing.T) {
	dir := gitInit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	s := storeOn(r, newClock())
	add(t, s, "A good memory stays")
	bad := "3f2a9c41d0e8b7a2"
	plant(t, s, bad, docWith(t, bad, map[string]any{"id": "0123456789abcdef", "text": "planted secret text"}))
	rep, err := r.Purge(context.Background(), bad)
	require.NoError(t, err)
	require.Equal(t, []string{"planted secret text"}, rep.Texts)
	require.NotContains(t, gittest.Run(t, dir, "log", "-p", RefMain), "planted secret text")
}

// TestMergeRejectsInvalidDocuments: a merge (fast-forward or three-way)
// never takes an invalid document from theirs; it says which and why, keeps
// ours' version, merges the rest, and a second merge changes nothing.
func TestMergeRejectsInvalidDocuments(t *testing.T) {
	for _, threeWay := range []bool{false, true} {
		for _, c := range badDocs(t, "3f2a9c41d0e8b7a2") {
			name := "fast-forward/"
			if threeWay {
				name = "three-way/"
			}
			t.Run(name+c.name, func(t *testing.T) {
				f := newMergeFixture(t)
				kept := f.add(f.ours, "Kept in its valid version")
				f.branch()
				good := f.add(f.theirs, "A good memory from them")
				f.tick()
				plant(t, f.theirs, "3f2a9c41d0e8b7a2", c.data)
				f.tick()
				plant(t, f.theirs, kept.ID, docWith(t, kept.ID, map[string]any{"schema": 3}))
				if threeWay {
					f.add(f.ours, "A memory of ours")
				}
				res := f.merge()
				require.Equal(t, mergeCommitted, res.Kind)
				require.Len(t, res.Rejected, 2)
				paths := []string{res.Rejected[0].Path(), res.Rejected[1].Path()}
				require.Contains(t, paths, "memories/3f/3f2a9c41d0e8b7a2.json")
				require.Contains(t, paths, memoryPath(kept.ID))
				require.Equal(t, []string{good.ID}, res.New)
				require.False(t, f.has(f.ours, "3f2a9c41d0e8b7a2"))
				require.Equal(t, kept.Text, f.get(f.ours, kept.ID).Text)
				require.Equal(t, good.Text, f.get(f.ours, good.ID).Text)
				require.Contains(t, res.Summary("them"), "2 invalid and not merged")
				ms, err := f.ours.List(Filter{})
				require.NoError(t, err)
				require.Len(t, ms, 2+btoi(threeWay))
				require.Empty(t, f.repo.Skipped())
				require.Equal(t, MergeUpToDate, f.merge().Kind)
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPullRejectsInvalidDocuments: a teammate pushes an invalid document
// with the git CLI; a pull reports it, merges the rest, and the store works.
func TestPullRejectsInvalidDocuments(t *testing.T) {
	w := newRemoteWorld(t)
	_, a := w.clone("Ann")
	dirB, b := w.clone("Bob")
	ctx := context.Background()
	w.addN(a, "a", 2, "good")
	sa := NewStore(a, RefMain, ScopeProject)
	plant(t, sa, "3f2a9c41d0e8b7a2", []byte(`{"schema":2,"id":"3f2a9c41d0e8b7a2"}`))
	w.sync(a)
	res, err := b.Pull(ctx, Writer{Agent: "cli"}, w.origin(b), PullOptions{})
	require.NoError(t, err)
	require.Len(t, res.Merge.Rejected, 1)
	require.Equal(t, "memories/3f/3f2a9c41d0e8b7a2.json", res.Merge.Rejected[0].Path())
	require.Contains(t, res.Merge.Rejected[0].Reason, "schema 2")
	require.Len(t, res.Merge.New, 2)
	require.Len(t, w.texts(dirB), 2)
	ms, err := NewStore(b, RefMain, ScopeProject).List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Contains(t, w.git(dirB, "log", "-1", "--format=%B", RefMain), "Not merged because they are invalid memory documents:\n  3f2a9c41d0e8b7a2: memory schema 2")
	w.fsck(dirB)
}

// FuzzValidateDocument: validation never panics, and what it accepts
// encodes back to a document it accepts again with the same content.
func FuzzValidateDocument(f *testing.F) {
	id := "3f2a9c41d0e8b7a2"
	f.Add(goodDoc(f, id))
	for _, c := range badDocs(f, id) {
		if len(c.data) < 64<<10 {
			f.Add(c.data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := validateDocument(data, id)
		if err != nil {
			require.True(t, errors.Is(err, memerr.ErrInvalid), "%v", err)
			return
		}
		out, err := m.Encode()
		require.NoError(t, err)
		m2, err := validateDocument(out, id)
		require.NoError(t, err, "%s", out)
		require.Equal(t, m.Text, m2.Text)
		require.Equal(t, len(m.Paths), len(m2.Paths)) // an empty list encodes as none
		require.Equal(t, strings.Join(m.Paths, "\x00"), strings.Join(m2.Paths, "\x00"))
		// every id and commit a reader may cut is long enough
		if m.Anchor != nil && m.Anchor.Commit != "" {
			require.GreaterOrEqual(t, len(m.Anchor.Commit), 40)
		}
		if m.SupersededBy != "" {
			require.Len(t, m.SupersededBy, IDHexLen)
		}
	})
}

// TestValidateScansFieldsBeforeNormalizing: every field is scanned as given.
// Lower-casing a tag hides an AWS key id's shape, and path.Clean turns a
// URL's "//" into "/", so a scan after either would miss the credential.
// A path or tag that is a URL with a password is refused whatever the
// password is. Credentials are assembled here so that no scanner of pushed
// code mistakes them for live ones.
func TestValidateScansFieldsBeforeNormalizing(t *testing.T) {
	awsID := "AK" + "IA" + "QX7R2WZ5TM3KPLN4"
	slack := "https://hooks.slack" + ".com/services/" + "T0GBYOO78F/B0F8RPQ8PT/4729RCigqh8oj22IbX30nzMD"
	refused := []struct {
		name string
		n    NewMemory
	}{
		{"upper-case AWS key id as a tag", NewMemory{Tags: []string{awsID}}},
		{"database URL as a path", NewMemory{Paths: []string{"postgres://app:Pa55-" + "word@db.internal:5432/prod"}}},
		{"database URL with a plain-word password as a path", NewMemory{Paths: []string{"mysql://root:postgres@db.internal/app"}}},
		{"Slack webhook as a path", NewMemory{Paths: []string{slack}}},
		{"URL with a password as a tag", NewMemory{Tags: []string{"redis://:hunter2@cache"}}},
		{"AWS key id as a key", NewMemory{Keys: []string{awsID}}},
		{"AWS key id as an origin", NewMemory{Origin: &Origin{File: "notes/" + awsID + ".md"}}},
		{"AWS key id as the anchor branch", NewMemory{Anchor: &Anchor{Branch: "fix/" + awsID}}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			n := c.n
			n.Text = "a harmless text"
			err := n.Validate()
			require.ErrorIs(t, err, memerr.ErrSecret)
			allowed := c.n
			allowed.Text, allowed.AllowSecret = "a harmless text", true
			if len(c.n.Tags) == 0 || !strings.Contains(c.n.Tags[0], ":") {
				require.NoError(t, allowed.Validate(), "--allow-secret stores it")
			}
		})
	}
	for _, n := range []NewMemory{
		{Tags: []string{"release-2024", "ci:flaky"}},
		{Paths: []string{"ssh://git@github.com/git-mem/git-mem.git", "docs//adr/0001.md", "./server/auth.ts"}},
		{Paths: []string{"postgres://$DB_USER:${DB_PASSWORD}@db.internal/app"}},
		{Keys: []string{"commit a4c123b1612dd272d1371c17149d439536b3216f"}},
		{Anchor: &Anchor{Branch: "fix/e25a7605-aec6-4024-9bd8-6d40fc891b4a"}},
	} {
		n.Text = "a harmless text"
		require.NoError(t, n.Validate(), "%+v", n)
	}
}

// TestCheckRestoreSecrets: every field a restore keeps as it is, and every
// event's, is scanned.
func TestCheckRestoreSecrets(t *testing.T) {
	awsID := "AK" + "IA" + "QX7R2WZ5TM3KPLN4"
	require.NoError(t, CheckRestoreSecrets(nil))
	good := func() *Memory {
		return &Memory{Agent: "claude-code", Subagent: "reviewer", Session: "4c1e", Author: "Ann <ann@example.com>",
			Anchor: &Anchor{Branch: "main"}, Origin: &Origin{File: "MEMORY.md"},
			Events: []Event{{Op: EventConfirm, Agent: "codex", Author: "Bo <bo@example.com>", Reason: "checked"}}}
	}
	require.NoError(t, CheckRestoreSecrets(good()))
	for name, set := range map[string]func(m *Memory){
		"agent":         func(m *Memory) { m.Agent = awsID },
		"subagent":      func(m *Memory) { m.Subagent = awsID },
		"session":       func(m *Memory) { m.Session = awsID },
		"author":        func(m *Memory) { m.Author = "Ann <" + awsID + "@example.com>" },
		"anchor branch": func(m *Memory) { m.Anchor.Branch = awsID },
		"origin":        func(m *Memory) { m.Origin.File = "postgres://app:s3cret-pw@db/prod" },
		"event 1":       func(m *Memory) { m.Events[0].Agent = awsID },
	} {
		m := good()
		set(m)
		err := CheckRestoreSecrets(m)
		require.ErrorIs(t, err, memerr.ErrSecret, name)
		require.Contains(t, err.Error(), name)
	}
}
