package surface_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/surface"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// gitRepo is a new repository with one commit on main, and no personal
// store in reach.
func gitRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "start"},
	} {
		out, err := exec.Command("git", args...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

func TestOpenStoresTakesTheClockAndTheGitDates(t *testing.T) {
	for _, tc := range []struct {
		name          string
		dates         surface.GitDates
		wantAuthor    time.Time
		wantCommitter time.Time
		wantErr       string
	}{
		{name: "no dates: the clock", wantAuthor: now, wantCommitter: now},
		{
			// the committer is dated as the author without GIT_COMMITTER_DATE
			name:       "GIT_AUTHOR_DATE",
			dates:      surface.GitDates{Author: "2020-01-02T03:04:05Z"},
			wantAuthor: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), wantCommitter: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC),
		},
		{
			name:       "both",
			dates:      surface.GitDates{Author: "2020-01-02T03:04:05Z", Committer: "2021-01-02T03:04:05Z"},
			wantAuthor: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), wantCommitter: time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC),
		},
		{name: "a date git rejects", dates: surface.GitDates{Committer: "not a date"}, wantErr: "GIT_COMMITTER_DATE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, isolated := range []bool{false, true} {
				dir := gitRepo(t)
				set, err := surface.OpenStores(dir, isolated, surface.Clock{Now: func() time.Time { return now }, Dates: tc.dates})
				if tc.wantErr != "" {
					require.ErrorContains(t, err, tc.wantErr)
					continue
				}
				require.NoError(t, err)
				require.NotNil(t, set.Repo)
				require.Nil(t, set.Personal)
				require.True(t, tc.wantAuthor.Equal(set.Repo.Now()), "author time %s", set.Repo.Now())
				// the commit a write makes carries both dates
				store, err := set.Writable(gitstore.ScopeProject)
				require.NoError(t, err)
				_, err = store.Add(context.Background(), gitstore.Writer{Agent: "test"}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The release train leaves on Thursdays.", Source: gitstore.SourceUser})
				require.NoError(t, err)
				out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%aI %cI", store.Ref).CombinedOutput()
				require.NoError(t, err, "%s", out)
				var author, committer time.Time
				for i, f := range strings.Fields(string(out)) {
					at, err := time.Parse(time.RFC3339, f)
					require.NoError(t, err)
					if i == 0 {
						author = at
					} else {
						committer = at
					}
				}
				require.True(t, tc.wantAuthor.Equal(author), "author date %s", author)
				require.True(t, tc.wantCommitter.Equal(committer), "committer date %s", committer)
			}
		})
	}
}

func TestGitDatesFrom(t *testing.T) {
	env := map[string]string{"GIT_AUTHOR_DATE": "a", "GIT_COMMITTER_DATE": "c", "GIT_DIR": "x"}
	require.Equal(t, surface.GitDates{Author: "a", Committer: "c"}, surface.GitDatesFrom(func(k string) string { return env[k] }))
	require.Equal(t, surface.GitDates{}, surface.GitDatesFrom(nil))
}

func TestAnchor(t *testing.T) {
	dir := gitRepo(t)
	set, err := surface.OpenStores(dir, true, surface.Clock{})
	require.NoError(t, err)
	head := set.Repo.Head()
	require.NotEmpty(t, head.Commit)
	for _, tc := range []struct {
		name  string
		set   *gitstore.Set
		scope gitstore.Scope
		want  *gitstore.Anchor
	}{
		{"project", set, gitstore.ScopeProject, &head},
		{"private", set, gitstore.ScopePrivate, &head},
		{"personal: spans projects", set, gitstore.ScopePersonal, nil},
		{"outside a repository", &gitstore.Set{}, gitstore.ScopePersonal, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, surface.Anchor(tc.set, &gitstore.Store{Scope: tc.scope}))
		})
	}
}

func TestAfterPullsCountsEachPurgedMemoryOnce(t *testing.T) {
	set := gitstore.NewSet(gitstore.NewMemoryRepo())
	for _, tc := range []struct {
		name  string
		pulls []*gitstore.PullResult
		want  surface.Pulled
	}{
		{"nothing pulled", nil, surface.Pulled{}},
		{"a nil pull", []*gitstore.PullResult{nil}, surface.Pulled{}},
		{"rewritten only", []*gitstore.PullResult{{Rewritten: true}}, surface.Pulled{Rewritten: true}},
		{
			"purged in two pulls",
			[]*gitstore.PullResult{{TeammatePurged: []string{"aaaa1111", "bbbb2222"}}, {TeammatePurged: []string{"aaaa1111"}}},
			surface.Pulled{Purged: []string{"aaaa1111", "bbbb2222"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := surface.AfterPulls(context.Background(), set, tc.pulls...)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestMergeFetchedWithoutARepositoryOnDisk(t *testing.T) {
	for _, set := range []*gitstore.Set{{}, gitstore.NewSet(gitstore.NewMemoryRepo())} {
		require.Equal(t, surface.Fetched{}, surface.MergeFetched(context.Background(), set, gitstore.Writer{Agent: "test"}))
	}
}

func TestHitJSON(t *testing.T) {
	m := &gitstore.Memory{ID: "0123456789abcdef0123456789abcdef01234567", Type: gitstore.TypeFact, Text: "Bookings are stored in UTC", Source: gitstore.SourceUser, Trust: 0.7, Created: now}
	for _, tc := range []struct {
		name string
		hit  index.Hit
		want map[string]any
	}{
		{
			"a match",
			index.Hit{Memory: m, Scope: gitstore.ScopeProject, Trust: 0.7, Score: 1.23456, Relevance: 0.5, Confidence: 0.91234, Similarity: 0.8},
			map[string]any{"score": 1.235, "relevance": 0.5, "confidence": 0.912, "label": index.ConfidenceLabel(0.91234), "low_trust": false, "stale": false, "similarity": 0.8},
		},
		{
			"shown without matching, low trust, stale",
			index.Hit{Memory: m, Scope: gitstore.ScopeProject, Trust: 0.2, Stale: true, StaleReason: "a.go changed"},
			map[string]any{"score": 0.0, "relevance": 0.0, "confidence": 0.0, "label": "", "low_trust": true, "stale": true, "stale_reason": "a.go changed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(surface.NewHit(tc.hit, "0123", now))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			require.Equal(t, m.ID, got["id"])
			require.Equal(t, "0123", got["short_id"])
			require.Equal(t, "project", got["scope"])
			for k, v := range tc.want {
				require.Equal(t, v, got[k], k)
			}
			_, has := got["similarity"]
			require.Equal(t, tc.hit.Similarity != 0, has)
		})
	}
}

func TestVersionsJSON(t *testing.T) {
	m := &gitstore.Memory{ID: "0123456789abcdef0123456789abcdef01234567", Text: "kept", Trust: 0.5, Created: now}
	vs := surface.NewVersions([]gitstore.Version{
		{Change: gitstore.Change{Op: "forget", Time: now.Add(time.Hour), Author: "T"}},
		{Change: gitstore.Change{Op: "add", Time: now, Agent: "claude", Author: "T"}, Memory: m},
	})
	b, err := json.Marshal(vs)
	require.NoError(t, err)
	var got []map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got, 2)
	require.Contains(t, got[0], "text")
	require.Nil(t, got[0]["text"], "a removal's text is null")
	require.NotContains(t, got[0], "trust")
	require.NotContains(t, got[0], "agent")
	require.Equal(t, "kept", got[1]["text"])
	require.Equal(t, "claude", got[1]["agent"])
	require.Equal(t, "T", got[1]["author"])
	require.Equal(t, now.Format(time.RFC3339), got[1]["time"])
}

func TestDedupeNamesTheFullID(t *testing.T) {
	dup := &gitstore.Memory{ID: "fedcba9876543210fedcba9876543210fedcba98"}
	for _, tc := range []struct {
		name string
		o    index.Outcome
		want surface.Dedupe
	}{
		{"new", index.Outcome{}, surface.Dedupe{}},
		{"reinforced", index.Outcome{Reinforced: true}, surface.Dedupe{Reinforced: true}},
		{"possible duplicate", index.Outcome{PossibleDuplicateOf: dup}, surface.Dedupe{PossibleDuplicateOf: dup.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, surface.NewDedupe(&tc.o))
		})
	}
}

// TestMergeFetchedFinishesAStoppedScrub: a pull killed after it removed a
// memory a teammate purged, and before it rebuilt the caches, leaves its
// marker; the next request rebuilds the caches without the text and lifts
// the marker. A marker naming a memory history still holds is left to the
// pull that purges it.
func TestMergeFetchedFinishesAStoppedScrub(t *testing.T) {
	ctx := context.Background()
	const leak = "saved by mistake: the host list is zebra-quokka"
	for _, tc := range []struct {
		name   string
		purged bool // history no longer holds the memory (the pull got that far)
	}{
		{"history rewritten", true},
		{"history not yet rewritten", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitRepo(t)
			set, err := surface.OpenStores(dir, true, surface.Clock{Now: func() time.Time { return now }})
			require.NoError(t, err)
			store, err := set.Writable(gitstore.ScopeProject)
			require.NoError(t, err)
			x, err := store.Add(ctx, gitstore.Writer{Agent: "test"}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: leak, Source: gitstore.SourceUser})
			require.NoError(t, err)
			_, err = store.Add(ctx, gitstore.Writer{Agent: "test"}, gitstore.NewMemory{Type: gitstore.TypeFact, Text: "The release train leaves on Thursdays.", Source: gitstore.SourceUser})
			require.NoError(t, err)
			_, err = index.Rebuild(ctx, set, nil)
			require.NoError(t, err)
			require.True(t, cachesHold(t, set.Repo.Mem().Root(), "zebra-quokka"), "the caches hold the text")

			// what a killed pull leaves: its marker, and maybe history rewritten
			marker := set.Repo.Mem().ScrubMarker()
			require.NoError(t, os.MkdirAll(filepath.Dir(marker), 0o755))
			require.NoError(t, os.WriteFile(marker, []byte(x.ID+"\n"), 0o644))
			if tc.purged {
				_, err = set.Repo.Purge(ctx, x.ID)
				require.NoError(t, err)
			}

			f := surface.MergeFetched(ctx, set, gitstore.Writer{Agent: "test"})
			require.NoError(t, f.ScrubErr)
			require.Equal(t, !tc.purged, cachesHold(t, set.Repo.Mem().Root(), "zebra-quokka"))
			_, err = os.Stat(marker)
			if tc.purged {
				require.ErrorIs(t, err, os.ErrNotExist, "the marker is lifted")
			} else {
				require.NoError(t, err, "the marker stays for the pull that purges")
				require.Equal(t, []string{x.ID}, set.Repo.ScrubPending())
			}
		})
	}
}

// cachesHold reports whether a file under dir holds text.
func cachesHold(t *testing.T, dir, text string) bool {
	t.Helper()
	found := false
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found = found || bytes.Contains(data, []byte(text))
		return nil
	}))
	return found
}
