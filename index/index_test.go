package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/evaluation/dataset"
	"github.com/git-mem/git-mem/index/snapshot"
	"github.com/git-mem/git-mem/memerr"
)

func TestQueryTerms(t *testing.T) {
	cases := []struct {
		name  string
		query string
		want  []string
	}{
		{"camelCase", "why does requireAdmin throw?", []string{"requireadmin", "requir", "admin", "throw"}},
		{"path", "server/auth.ts", []string{"server/auth.ts", "auth.ts", "server", "auth", "ts"}},
		{"a file name alone is no path", "auth.ts", []string{"auth.ts", "auth", "ts"}},
		{"a directory is no file name", "server/db", []string{"server/db", "server", "db"}},
		{"snake_case", "ERR_NO_SESSION", []string{"err_no_session", "err", "session"}},
		{"kebab-case", "date-fns-tz", []string{"date-fns-tz", "date", "fns", "tz"}},
		{"acronym then word", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"OAuth stays whole", "OAuth2", []string{"oauth2"}},
		{"stemming", "deploying deployed deploys", []string{"deploy"}},
		{"stopwords and fillers", "how do we use the thing", nil},
		{"numbers kept", "port 8080", []string{"port", "8080"}},
		{"trailing punctuation", "stored in UTC.", []string{"store", "utc"}},
		{"query syntax is text", `title:"foo" +bar -baz AND (qux OR quux)^2 ~fuzzy*`, []string{"titl", "foo", "bar", "baz", "qux", "quux", "2", "fuzzi"}},
		{"empty", "", nil},
		{"symbols only", `!!! ??? {} [] () :: ;; "" ''`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := QueryTerms(tc.query)
			if tc.want == nil {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestWordLists: every word list is sorted and without repeats, as its
// search by halves needs, and finds each of its words and nothing else.
func TestWordLists(t *testing.T) {
	for name, l := range map[string]wordList{
		"stopwords": stopwords, "fillers": fillers, "stopWords": stopWords,
		"negations": negations, "auxiliaries": auxiliaries,
	} {
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, l)
			for i := 1; i < len(l); i++ {
				require.Less(t, l[i-1], l[i], "sorted, each word once")
			}
			for _, w := range l {
				require.True(t, l.has(w), w)
				require.False(t, l.has(w+"x"), w+"x")
				require.False(t, l.has(strings.ToUpper(w)), "words are lower-case")
			}
			require.False(t, l.has(""))
		})
	}
}

func TestQueryTermsCap(t *testing.T) {
	long := "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar"
	for i := 0; i < 3; i++ {
		long += " " + long
	}
	for _, w := range strings.Fields("papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber coral denim ebony fuchsia garnet hazel indigo jasmine khaki lilac mauve navy ochre peach quartz russet sepia teal umber violet wheat") {
		long += " " + w
	}
	long += " server/auth.ts requireAdmin"
	got := QueryTerms(long)
	require.Len(t, got, MaxQueryTerms)
	require.Contains(t, got, "server/auth.ts", "identifiers and paths are kept first")
	require.Contains(t, got, "requireadmin")
}

func TestInjectable(t *testing.T) {
	cases := []struct {
		prompt string
		want   bool
	}{
		{"ok", false},
		{"yes, do it", false},
		{"thanks!", false},
		{"", false},
		{"fix the flaky playwright test", true},
		{"why does requireAdmin fail", true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, Injectable(tc.prompt), tc.prompt)
	}
}

func TestSynonymsAreSymmetricAndAnalyzed(t *testing.T) {
	require.Contains(t, Synonyms("deploy"), "ship")
	require.Contains(t, Synonyms("ship"), "deploy")
	source, _ := lexiconSources(t)
	syns, phrases := parseThesaurus(source)
	for term, syns := range syns {
		require.Equal(t, term, strings.ToLower(term))
		require.NotContains(t, syns, term)
	}
	require.Nil(t, Synonyms("no-such-word-here"))
	require.NotEmpty(t, phrases)
}

func TestPhrasesBecomeOneWord(t *testing.T) {
	// "log in" is the login, not logging; "signed off" is an approval
	require.Equal(t, []string{"login", "googl"}, Analyze("Log in with Google"))
	require.Contains(t, Synonyms("login"), "signin")
	require.Equal(t, []string{"rollback", "deploy"}, QueryTerms("how do I roll back a deploy?"))
	require.Contains(t, Synonyms("rollback"), "revert")
	// phrases that stem alike are one word
	require.Equal(t, Analyze("the tests time out"), Analyze("the tests timed out"))
	require.Equal(t, []string{"test", "timeout"}, Analyze("the tests timed out"))
	// the loose words still count elsewhere
	require.Equal(t, []string{"log", "file"}, Analyze("log file"))
	// a phrase is only recognized in plain words
	require.Equal(t, []string{"log", "in.txt", "txt"}, Analyze("log in.txt"))
}

func TestRecallFindsAndRanks(t *testing.T) {
	r := newTestRepo(t)
	mems := r.seed()
	cases := []struct {
		name, query, want string
	}{
		{"identifier", "requireAdmin ERR_NO_SESSION", "requireAdmin throws"},
		{"path", "what do we know about server/auth.ts", "requireAdmin throws"},
		{"stemmed", "where do we deploy the api", "deployed to Fly.io"},
		{"synonym", "how do we ship the api", "deployed to Fly.io"},
		{"error text", `Error: "ERR_NO_SESSION" thrown by requireAdmin()`, "requireAdmin throws"},
		{"time zones", "which timezone are bookings stored in", "Bookings are stored in UTC"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := r.recall(tc.query)
			require.NotEmpty(t, res.Hits, "terms %v", res.Terms)
			require.Contains(t, res.Hits[0].Memory.Text, tc.want)
			require.Equal(t, "snapshot", res.Source, res.Fallback)
			h := res.Hits[0]
			require.Greater(t, h.Score, 0.0)
			require.GreaterOrEqual(t, h.Confidence, Explicit.Threshold())
			require.Equal(t, gitstore.ScopeProject, h.Scope)
		})
	}
	// off-topic questions return nothing
	for _, q := range []string{"what is the capital of Peru", "recommend a mechanical keyboard", "how do I bake sourdough bread"} {
		require.Empty(t, r.recall(q).Hits, q)
	}
	require.Len(t, mems, len(seedMemories))
}

func TestRecallIndexAndScanAgree(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	for _, q := range []string{"deploy api", "requireAdmin", "playwright timeout ci", "postgres column names", "stripe webhook secret", "squash merge pull request"} {
		a := r.recall(q)
		b := r.recall(q, func(o *Options) { o.NoIndex = true })
		require.Equal(t, "snapshot", a.Source)
		require.Equal(t, "scan", b.Source)
		require.Equal(t, ids(a), ids(b), q)
		for i := range a.Hits {
			require.InDelta(t, a.Hits[i].Score, b.Hits[i].Score, 1e-9)
		}
	}
}

func TestIncrementalSync(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	require.NotEmpty(t, r.recall("deploy fly.io").Hits)
	snapDocs := func() int {
		s, err := openView(SnapshotPath(r.set), false)
		require.NoError(t, err)
		defer s.close()
		return s.ndocs
	}
	docs := snapDocs()

	// add
	m := r.add("The payments queue retries failed charges three times with exponential backoff.")
	res := r.recall("payments retries backoff")
	require.False(t, res.Rebuilt)
	require.Equal(t, m.ID, ids(res)[0])
	require.Equal(t, docs+1, snapDocs())

	// revise
	_, err := r.main.Revise(context.Background(), gitstore.Writer{Agent: "test"}, m.ID, "The payments queue retries failed charges five times with linear backoff.")
	require.NoError(t, err)
	res = r.recall("payments retries backoff five linear")
	require.Equal(t, m.ID, ids(res)[0])
	require.Contains(t, res.Hits[0].Memory.Text, "five times")

	// supersede: the old one is gone unless --all or valid-at
	nm := r.add("The payments queue is drained by the Go worker; retries are configured in River.", func(n *gitstore.NewMemory) { n.Supersedes = m.ID })
	res = r.recall("payments queue retries")
	require.Equal(t, nm.ID, ids(res)[0])
	require.NotContains(t, ids(res), m.ID, "a replaced memory is never current")
	res = r.recall("payments queue retries", func(o *Options) { o.All = true })
	require.Subset(t, ids(res), []string{nm.ID, m.ID})
	past := testNow.Add(-time.Hour)
	r.now = testNow.Add(2 * time.Hour)
	res = r.recall("payments queue retries", func(o *Options) { o.ValidAt = &past })
	require.Empty(t, res.Hits, "nothing was valid before the store existed")

	// forget
	_, err = r.main.Forget(context.Background(), gitstore.Writer{Agent: "test"}, nm.ID)
	require.NoError(t, err)
	res = r.recall("payments queue retries River worker", func(o *Options) { o.All = true })
	require.NotContains(t, ids(res), nm.ID)
	require.False(t, res.Rebuilt)
	require.Equal(t, docs+1, snapDocs(), "the superseded memory stays, the forgotten one is gone")
	b := r.recall("payments queue retries River worker", func(o *Options) { o.All = true; o.NoIndex = true })
	require.Equal(t, ids(b), ids(res))
}

// TestSnapshotRebuiltWhenNeeded: a snapshot that is missing, of another
// version, truncated, corrupt or stale never answers wrongly: it is brought
// forward or rebuilt, and the answer is the scan's.
func TestSnapshotRebuiltWhenNeeded(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(r *testRepo, path string)
	}{
		{"missing", func(r *testRepo, path string) { require.NoError(t, os.Remove(path)) }},
		{"other version", func(r *testRepo, path string) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			data[8]++
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}},
		{"truncated", func(r *testRepo, path string) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data[:len(data)*2/3], 0o644))
		}},
		{"corrupt table of contents", func(r *testRepo, path string) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			for i := len(data) - 16; i < len(data); i++ {
				data[i] ^= 0x5a
			}
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}},
		{"corrupt data", func(r *testRepo, path string) {
			// every memory and postings list: whatever the query reads is damaged
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			for i := snapshot.HeaderSize; i < len(data)/2; i += 7 {
				data[i] ^= 0x5a
			}
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}},
		{"other thesaurus", func(r *testRepo, path string) {
			// written under another thesaurus, whose phrases shape documents' terms
			old := analysisPrint
			analysisPrint = func() uint32 { return printOf(lexiconText + "\n# another revision") }
			r.recall("deploy api fly.io")
			analysisPrint = old
		}},
		{"corrupt delta", func(r *testRepo, path string) {
			r.add("Deploys to the api are paused on Fridays; fly.io deploys resume on Monday.")
			r.recall("deploy api fly.io")
			data, err := os.ReadFile(deltaPath(path))
			require.NoError(t, err)
			for i := 20; i < len(data); i += 5 {
				data[i] ^= 0x5a
			}
			require.NoError(t, os.WriteFile(deltaPath(path), data, 0o644))
		}},
		{"truncated delta", func(r *testRepo, path string) {
			r.add("Deploys to the api are paused on Fridays; fly.io deploys resume on Monday.")
			r.recall("deploy api fly.io")
			r.add("The api fly.io deploy token rotates every ninety days.")
			r.recall("deploy api fly.io")
			data, err := os.ReadFile(deltaPath(path))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(deltaPath(path), data[:len(data)-9], 0o644))
		}},
		{"garbage", func(r *testRepo, path string) {
			require.NoError(t, os.WriteFile(path, []byte("\x00\x01"), 0o644))
		}},
		{"stale", func(r *testRepo, path string) {
			// the snapshot of an older state stays in place while the ref moves
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			old := r.recall("deploy api fly.io")
			r.add("Deploys to the api now go to Render instead of Fly.io; the api fly.io app is retired.")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			require.NotEqual(t, ids(old), ids(r.recall("deploy api fly.io", func(o *Options) { o.NoIndex = true })))
		}},
		{"history rewritten", func(r *testRepo, path string) {
			m := r.add("Temporary memory about the api deploy fly.io token that gets purged.")
			require.Contains(t, ids(r.recall("deploy api fly.io")), m.ID)
			_, err := r.set.Repo.Purge(context.Background(), m.ID)
			require.NoError(t, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRepo(t)
			r.seed()
			first := r.recall("deploy api fly.io")
			require.Equal(t, "snapshot", first.Source, first.Fallback)
			path := SnapshotPath(r.set)
			tc.break_(r, path)
			res := r.recall("deploy api fly.io")
			// damage found while reading answers by scanning; the next recall rebuilds
			require.Contains(t, []string{"snapshot", "scan"}, res.Source, res.Fallback)
			want := r.recall("deploy api fly.io", func(o *Options) { o.NoIndex = true })
			require.Equal(t, ids(want), ids(res))
			for i := range res.Hits {
				require.InDelta(t, want.Hits[i].Score, res.Hits[i].Score, 1e-9)
			}
			again := r.recall("deploy api fly.io")
			require.Equal(t, "snapshot", again.Source, again.Fallback)
			require.Equal(t, ids(want), ids(again))
			s, err := openView(path, false)
			require.NoError(t, err, "the snapshot was written again")
			defer s.close()
			tips, err := Tips(r.set.Stores())
			require.NoError(t, err)
			require.Equal(t, tips, s.tips)
		})
	}
}

func TestRecallBadInputNeverFails(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	cases := map[string]string{
		"empty":       "",
		"spaces":      "   \n\t ",
		"quotes":      `"unterminated 'quotes`,
		"colons":      "field:value other:thing::",
		"query ops":   `+foo -bar AND OR NOT * ? ~ ^2 [a TO b] {x} /regex/`,
		"code":        "func main() { if err != nil { return fmt.Errorf(\"x: %w\", err) } }",
		"binary":      "\x00\x01\x02\xff\xfe binary \x7f",
		"huge":        strings.Repeat("deploy requireAdmin server/auth.ts ", 50000),
		"long token":  strings.Repeat("a", 100000),
		"unicode":     "日本語のテキスト émoji 🚀 ünïcödé",
		"invalid utf": "bad \xc3\x28 utf8",
		"backslashes": `C:\Users\me\repo\server\auth.ts`,
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Recall(context.Background(), r.set, Options{Query: q, Now: testNow})
			require.NoError(t, err)
			require.NotNil(t, res)
			require.LessOrEqual(t, len(res.Terms), MaxQueryTerms)
		})
	}
}

func TestStaleness(t *testing.T) {
	r := newTestRepo(t)
	r.commitFile("server/auth.ts", "export function requireAdmin() {}\n")
	r.commitFile("server/db.ts", "export const db = 1\n")
	r.commitFile("README.md", "hello\n")
	head := r.set.Repo.Head()
	anchor := func(n *gitstore.NewMemory) { n.Anchor = &head }
	auth := r.add("requireAdmin throws ERR_NO_SESSION before login.", anchor, func(n *gitstore.NewMemory) { n.Paths = []string{"server/auth.ts"} })
	mentioned := r.add("The database handle in server/db.ts is a singleton; never open a second pool.", anchor)
	gone := r.add("The legacy importer lives in tools/import.py and runs nightly.", anchor, func(n *gitstore.NewMemory) { n.Paths = []string{"tools/import.py"} })
	fresh := r.add("README.md explains the singleton database pool and the nightly importer.", anchor)

	r.commitFile("server/auth.ts", "export function requireAdmin() { throw 1 }\n")
	r.commitFile("server/auth.ts", "export function requireAdmin() { throw 2 }\n")
	r.commitFile("server/auth.ts", "export function requireAdmin() { throw 3 }\n")
	r.commitFile("server/db.ts", "export const db = 2\n")

	byID := func(res *Result) map[string]Hit {
		out := map[string]Hit{}
		for _, h := range res.Hits {
			out[h.Memory.ID] = h
		}
		return out
	}
	hits := byID(r.recall("requireAdmin ERR_NO_SESSION login"))
	require.True(t, hits[auth.ID].Stale)
	require.Equal(t, "server/auth.ts changed in 3 commits since "+head.Commit[:10], hits[auth.ID].StaleReason)

	// both memories about the pool, whatever the confidence makes of them:
	// staleness is what is checked
	hits = byID(r.recall("database singleton pool", func(o *Options) { o.Point = Unfiltered }))
	require.Contains(t, hits, mentioned.ID)
	require.Contains(t, hits, fresh.ID)
	require.True(t, hits[mentioned.ID].Stale)
	require.Contains(t, hits[mentioned.ID].StaleReason, "server/db.ts changed in 1 commit since")
	require.False(t, hits[fresh.ID].Stale, "README.md did not change")

	hits = byID(r.recall("legacy importer nightly"))
	require.True(t, hits[gone.ID].Stale)
	require.Contains(t, hits[gone.ID].StaleReason, "tools/import.py no longer exists")

	hits = byID(r.recall("requireAdmin ERR_NO_SESSION login", func(o *Options) { o.NoStale = true }))
	require.False(t, hits[auth.ID].Stale)
}

func TestBoostsAndTrust(t *testing.T) {
	r := newTestRepo(t)
	a := r.add("Cache invalidation for availability uses a 30 second TTL in Redis.", func(n *gitstore.NewMemory) { n.Paths = []string{"server/cache.ts"} })
	b := r.add("Cache invalidation for prices uses a 30 second TTL in Redis.", func(n *gitstore.NewMemory) { n.Paths = []string{"server/prices.ts"} })
	plain := r.recall("cache invalidation ttl redis")
	require.Len(t, plain.Hits, 2)
	touched := r.recall("cache invalidation ttl redis", func(o *Options) { o.Touched = []string{"server/prices.ts"} })
	require.Equal(t, b.ID, touched.Hits[0].Memory.ID, "the memory about a file being changed ranks first")
	touched = r.recall("cache invalidation ttl redis", func(o *Options) { o.Touched = []string{"server/cache.ts"} })
	require.Equal(t, a.ID, touched.Hits[0].Memory.ID)
	// the worktree's changes, read by a git status that runs meanwhile, for
	// one phrasing and for several: whichever file is changed, its memory
	// ranks first
	r.commitFile("server/cache.ts", "export {}\n")
	r.commitFile("server/prices.ts", "export {}\n")
	for _, changed := range []struct {
		file string
		want *gitstore.Memory
	}{{"server/cache.ts", a}, {"server/prices.ts", b}} {
		r.git("checkout", "--", ".")
		require.NoError(t, os.WriteFile(filepath.Join(r.dir, filepath.FromSlash(changed.file)), []byte("export const ttl = 30\n"), 0o644))
		for _, also := range [][]string{nil, {"redis ttl for cache invalidation"}} {
			later := r.recall("cache invalidation ttl redis", func(o *Options) {
				o.TouchedBy, o.Also, o.MinConfidence = r.set.Repo.WorktreeChangesLater(context.Background()), also, ptr(0.05)
			})
			require.NotEmpty(t, later.Hits, "phrasings %v", also)
			require.Equal(t, changed.want.ID, later.Hits[0].Memory.ID, "%s changed, phrasings %v", changed.file, also)
		}
	}

	_, err := r.main.Dispute(context.Background(), gitstore.Writer{Agent: "test"}, a.ID, "wrong")
	require.NoError(t, err)
	_, err = r.main.Dispute(context.Background(), gitstore.Writer{Agent: "test"}, a.ID, "still wrong")
	require.NoError(t, err)
	res := r.recall("cache invalidation ttl redis")
	require.Equal(t, b.ID, res.Hits[0].Memory.ID, "the disputed memory ranks lower")
	res = r.recall("cache invalidation ttl redis", func(o *Options) { o.MinTrust = 0.4 })
	require.Equal(t, []string{b.ID}, ids(res))
}

func TestPack(t *testing.T) {
	mk := func(id, text string) Hit {
		return Hit{Memory: &gitstore.Memory{ID: id, Type: "fact", Text: text, Author: "Ann <ann@example.com>", Agent: "codex"}, Trust: 0.9, Scope: gitstore.ScopeProject}
	}
	long := strings.Repeat("word ", 400)
	res := &Result{Hits: []Hit{
		mk("aaaaaa1111111111", "first memory"),
		mk("bbbbbb2222222222", long),
		mk("cccccc3333333333", strings.Repeat("medium text ", 30)),
		mk("dddddd4444444444", "small one"),
	}, Matched: 9}

	text, shown := Pack(nil, res, 0, 0, "git mem recall --limit 30 -- q")
	require.Len(t, shown, 4)
	require.Contains(t, text, "[cut: git mem show bbbbbb]")
	require.Contains(t, text, "by Ann via codex")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Equal(t, "5 more matched: git mem recall --limit 30 -- q", lines[len(lines)-1])

	// a budget that fits the first item and the small one: the long and medium ones are skipped
	text, shown = Pack(nil, res, 90, 0, "git mem recall --limit 30 -- q")
	require.LessOrEqual(t, len([]rune(text)), 90*CharsPerToken)
	require.Equal(t, []string{"aaaaaa1111111111", "dddddd4444444444"}, []string{shown[0].Memory.ID, shown[1].Memory.ID})
	require.Contains(t, text, "7 more matched")

	// a character cap wins over a larger token budget
	text, _ = Pack(nil, res, 10000, 300, "x")
	require.LessOrEqual(t, len([]rune(text)), 300)

	// nothing matched: nothing printed
	text, shown = Pack(nil, &Result{}, 100, 0, "x")
	require.Empty(t, text)
	require.Empty(t, shown)
}

func TestRecallOutsideAnyDirectory(t *testing.T) {
	repo := gitstore.NewMemoryRepo()
	set := gitstore.NewSet(repo)
	st := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	_, err := st.Add(context.Background(), gitstore.Writer{}, gitstore.NewMemory{Text: "Deploys go through Fly.io from main"})
	require.NoError(t, err)
	res, err := Recall(context.Background(), set, Options{Query: "deploy fly.io"})
	require.NoError(t, err)
	require.Equal(t, "scan", res.Source)
	require.Len(t, res.Hits, 1)
	_, err = Rebuild(context.Background(), set, nil)
	require.ErrorIs(t, err, memerr.ErrNoRepo)
}

func TestAsOf(t *testing.T) {
	r := newTestRepo(t)
	old := r.add("Emails are sent with SendGrid dynamic templates.")
	r.now = testNow.Add(24 * time.Hour)
	r.add("Emails are sent with Postmark templates.", func(n *gitstore.NewMemory) { n.Supersedes = old.ID })
	then := testNow.Add(time.Hour)
	res := r.recall("emails templates sent", func(o *Options) { o.AsOf = &then; o.Now = then })
	require.Equal(t, []string{old.ID}, ids(res))
	require.Equal(t, "scan", res.Source)
	res = r.recall("emails templates sent")
	require.Len(t, res.Hits, 1)
	require.NotEqual(t, old.ID, res.Hits[0].Memory.ID)
}

func TestTopByRelevance(t *testing.T) {
	var cands []cand
	for i, r := range []float64{0.1, 0.9, 0.5, 0.5, 0.7, 0.3, 0.5, 0.95, 0.2} {
		cands = append(cands, cand{doc: uint64(i), rel: r})
	}
	cases := []struct {
		k    int
		want []uint64
	}{
		{1, []uint64{7}},
		{3, []uint64{7, 1, 4}},
		{4, []uint64{7, 1, 4, 2, 3, 6}}, // ties with the 4th are kept
		{10, []uint64{7, 1, 4, 2, 3, 6, 5}},
	}
	for _, tc := range cases {
		top, above := topByRelevance(cands, 0.25, tc.k)
		var got []uint64
		for _, c := range top {
			got = append(got, c.doc)
		}
		require.Equal(t, 7, above, "0.1 and 0.2 are under the floor")
		require.Equal(t, tc.want, got, "k=%d", tc.k)
	}
	top, above := topByRelevance(nil, 0.25, 5)
	require.Empty(t, top)
	require.Zero(t, above)
}

// TestPruningChangesNothing: scoring with MaxScore pruning finds exactly the
// candidates over the candidate floor, with the same relevance and evidence
// to the bit, as a full evaluation,
// for every eval query, on the scan and on the snapshot (bleveindex tests
// the bleve index); and scoreTop keeps what topByRelevance keeps.
func TestPruningChangesNothing(t *testing.T) {
	ds, err := dataset.LoadDataset(filepath.Join(evalDir(), "tidewater"))
	require.NoError(t, err)
	r := newTestRepo(t)
	require.NoError(t, ds.Load(context.Background(), r.main))
	// generated memories make common words common, so that pruning (and
	// seeking in the index's postings) really happens
	genStore(t, r.main, 1500, 99)
	entries, err := readEntries(context.Background(), r.set.Stores(), func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() })
	require.NoError(t, err)
	scan := newScanCorpus(entries, analyzer{})
	snap, err := syncSnapshot(context.Background(), SnapshotPath(r.set), r.set.Stores(), Access{})
	require.NoError(t, err)

	// the candidates over the floor by memory, with all their evidence
	over := func(c loader, cands []cand) map[string]cand {
		out := map[string]cand{}
		for _, cd := range cands {
			if cd.rel >= candidateFloor {
				key, err := c.external(cd.doc)
				require.NoError(t, err)
				cd.doc = 0 // the scan's and the snapshot's numbers differ
				out[key] = cd
			}
		}
		return out
	}
	queries := append([]string(nil), benchQueries...)
	for _, q := range ds.Queries {
		queries = append(queries, q.Query)
	}
	for _, q := range queries {
		terms := QueryTerms(q)
		full, _, err := score(scan, terms, &Tuning{candidateFloor: 1e-9})
		require.NoError(t, err)
		want := over(scan, full)
		for name, c := range map[string]loader{"scan": scan, "snapshot": snap} {
			pruned, _, err := score(c, terms, nil)
			require.NoError(t, err)
			got := over(c, pruned)
			require.Equal(t, len(want), len(got), "%s: %q", name, q)
			// to the bit: the same sums, added in the same order
			for k, v := range want {
				require.Equal(t, v, got[k], "%s: %q", name, q)
			}
			// keeping the top k as the candidates are scored keeps what
			// selecting from all of them keeps, ties included
			for _, k := range []int{1, 3, minCandidates, 100000} {
				wantTop, wantAbove := topByRelevance(pruned, 0, k)
				top, above, _, err := scoreTop(c, terms, nil, k)
				require.NoError(t, err)
				require.Equal(t, wantAbove, above, "%s k=%d: %q", name, k, q)
				require.Equal(t, wantTop, top, "%s k=%d: %q", name, k, q)
			}
		}
	}
}

// TestSnapshotForwardEqualsRebuild: a snapshot brought forward by tree
// diffs through adds, revisions, supersessions and forgets is byte for byte
// the snapshot built from scratch, and it round-trips: every document and
// postings list reads back as written.
func TestSnapshotForwardEqualsRebuild(t *testing.T) {
	r := newTestRepo(t)
	mems := r.seed()
	path := SnapshotPath(r.set)
	ctx := context.Background()
	// brought forward, the snapshot is a base and a delta: folded, they are
	// the snapshot built from scratch
	forward := func() []byte {
		s, err := syncSnapshot(ctx, path, r.set.Stores(), Access{})
		require.NoError(t, err)
		s.close()
		v, err := openView(path, false)
		require.NoError(t, err)
		defer v.close()
		data, err := v.fold(v.tips, newSnapChanges())
		require.NoError(t, err)
		return data
	}
	scratch := func() []byte {
		p := filepath.Join(t.TempDir(), "recall.snapshot")
		s, err := syncSnapshot(ctx, p, r.set.Stores(), Access{})
		require.NoError(t, err)
		s.close()
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		return data
	}
	require.Equal(t, scratch(), forward())
	w := gitstore.Writer{Agent: "test"}
	var first *gitstore.Memory
	for _, m := range mems {
		first = m
		break
	}
	steps := []func(){
		func() { r.add("The payments queue retries failed charges three times with exponential backoff.") },
		func() {
			_, err := r.main.Revise(ctx, w, first.ID, "Bookings are stored in UTC; the React UI converts with date-fns-tz.")
			require.NoError(t, err)
		},
		func() {
			r.add("Deploys now go to Render; Fly.io is retired.", func(n *gitstore.NewMemory) { n.Supersedes = mems[seedMemories[3].Text].ID })
		},
		func() {
			_, err := r.main.Forget(ctx, w, mems[seedMemories[6].Text].ID)
			require.NoError(t, err)
		},
		func() {
			for i := 0; i < 5; i++ {
				r.add(fmt.Sprintf("Generated note %d about the queue worker and zebra%d.", i, i))
			}
		},
	}
	for i, step := range steps {
		step()
		require.Equal(t, scratch(), forward(), "step %d", i)
	}
	_, err := os.Stat(deltaPath(path))
	require.NoError(t, err, "writes were appended to the delta")
	s, err := openView(path, false)
	require.NoError(t, err)
	defer s.close()
	entries, err := readEntries(ctx, r.set.Stores(), func(st *gitstore.Store) (*gitstore.Reader, error) { return st.Read() })
	require.NoError(t, err)
	require.Equal(t, len(entries), s.docCount())
	scan := newScanCorpus(entries, analyzer{})
	require.InDelta(t, scan.avgLen(), s.avgLen(), 1e-12)
	for term, ps := range scan.post {
		df, err := s.df(term)
		require.NoError(t, err)
		require.Equal(t, len(ps), df, term)
		got := map[string][2]int{}
		require.NoError(t, s.postings(term, func(doc uint64, tf, dl int) {
			key, err := s.external(doc)
			require.NoError(t, err)
			got[key] = [2]int{tf, dl}
		}))
		for _, p := range ps {
			require.Equal(t, [2]int{p.tf, p.dl}, got[scan.list[p.doc].key], term)
		}
	}
	for _, e := range entries {
		en, err := s.load(e.key)
		require.NoError(t, err)
		want, err := e.m.Encode()
		require.NoError(t, err)
		got, err := en.m.Encode()
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

// TestReplacedFactAnswersWithItsReplacement: a question naming a replaced
// fact is answered by the memory that replaced it, never by the old one;
// with All both come back; once the replacement is forgotten, nothing.
func TestReplacedFactAnswersWithItsReplacement(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	old := r.add("Transactional emails are sent through SendGrid dynamic templates from the notifications service.")
	nw := r.add("Emails now go out through Postmark; templates live in the repo under emails/.", func(n *gitstore.NewMemory) { n.Supersedes = old.ID })
	res := r.recall("are we still on sendgrid dynamic templates?")
	require.Equal(t, []string{nw.ID}, ids(res))
	res = r.recall("are we still on sendgrid dynamic templates?", func(o *Options) { o.All = true })
	require.ElementsMatch(t, []string{nw.ID, old.ID}, ids(res))
	_, err := r.main.Forget(context.Background(), gitstore.Writer{Agent: "test"}, nw.ID)
	require.NoError(t, err)
	res = r.recall("are we still on sendgrid dynamic templates?")
	require.Empty(t, res.Hits)
	require.Equal(t, "snapshot", res.Source, res.Fallback)
}

// TestTouches: a memory is about the work in progress when one of its
// paths is being changed, is a directory holding a file being changed, or
// lies in a directory git status reports as untracked ("dir/").
func TestTouches(t *testing.T) {
	for _, tc := range []struct {
		paths, touched []string
		want           bool
	}{
		{[]string{"server/cache.ts"}, []string{"server/cache.ts"}, true},
		{[]string{"server/"}, []string{"server/cache.ts"}, true},
		{[]string{"server"}, []string{"server/cache.ts"}, true},
		{[]string{"server/cache.ts"}, []string{"server/"}, true},
		{[]string{"server/new/job.go"}, []string{"server/"}, true},
		{[]string{"server/cache.ts"}, []string{"serverless/"}, false},
		{[]string{"server/cache.ts"}, []string{"server/prices.ts"}, false},
		{[]string{"serverless/x.ts"}, []string{"server/"}, false},
		{nil, []string{"server/"}, false},
		{[]string{"server/cache.ts"}, nil, false},
	} {
		touched := map[string]bool{}
		for _, p := range tc.touched {
			touched[p] = true
		}
		require.Equal(t, tc.want, touches(&gitstore.Memory{Paths: tc.paths}, touched), "%v touched by %v", tc.paths, tc.touched)
	}
}
