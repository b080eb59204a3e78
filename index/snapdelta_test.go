package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestSnapshotWriteAppends: a write appends a segment to the delta and
// leaves the base alone; a segment written from an older state (a
// concurrent writer's) is skipped; a write that would take the delta past
// its fold size folds base and delta into a new base. Every step answers like a scan.
func TestSnapshotWriteAppends(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	ctx := context.Background()
	path := SnapshotPath(r.set)
	agree := func(q string) {
		t.Helper()
		a := r.recall(q)
		require.Equal(t, "snapshot", a.Source, a.Fallback)
		b := r.recall(q, func(o *Options) { o.NoIndex = true })
		require.Equal(t, ids(b), ids(a), q)
		for i := range a.Hits {
			require.InDelta(t, b.Hits[i].Score, a.Hits[i].Score, 1e-9)
		}
	}
	agree("deploy api fly.io")
	base, err := os.ReadFile(path)
	require.NoError(t, err)

	m := r.add("Deploys to the api are paused on Fridays; fly.io deploys resume on Monday.")
	require.NoError(t, Refresh(ctx, r.set))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, base, after, "the base is not rewritten")
	first, err := os.ReadFile(deltaPath(path))
	require.NoError(t, err)
	require.Less(t, len(first), 4096, "one memory's segment")
	require.Contains(t, ids(r.recall("deploy api fly.io fridays")), m.ID)
	agree("deploy api fly.io")

	// a revision drops a base document and adds its new version
	_, err = r.main.Revise(ctx, gitstore.Writer{Agent: "test"}, m.ID, "Deploys to the api are paused on Fridays and Saturdays.")
	require.NoError(t, err)
	require.NoError(t, Refresh(ctx, r.set))
	agree("deploy api fridays saturdays")

	// a concurrent writer's segment from the first state lands last: skipped
	require.NoError(t, appendSegment(deltaPath(path), first))
	v, err := openView(path, false)
	require.NoError(t, err)
	tips, err := Tips(r.set.Stores())
	require.NoError(t, err)
	require.Equal(t, tips, v.tips)
	require.False(t, v.damaged)
	v.close()
	agree("deploy api fridays saturdays")

	// past its fold size, the write folds
	saved := maxFoldAt
	maxFoldAt = 1
	defer func() { maxFoldAt = saved }()
	r.add("The api fly.io deploy token rotates every ninety days.")
	require.NoError(t, Refresh(ctx, r.set))
	_, err = os.Stat(deltaPath(path))
	require.True(t, os.IsNotExist(err), "the delta was folded into the base")
	folded, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotEqual(t, base, folded)
	agree("deploy api fly.io token")
	agree("deploy api fridays saturdays")
}

// TestSnapshotSurvivesAMovedRepository: a repository copied to another
// directory (cp -a, a restored CI cache, a container mounting it elsewhere)
// keeps its recall snapshot: the first recall there reads it as it is,
// where rebuilding it would cost a hook its deadline on a large store.
func TestSnapshotSurvivesAMovedRepository(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	require.NoError(t, Refresh(context.Background(), r.set))
	copied := filepath.Join(t.TempDir(), "moved")
	out, err := exec.Command("cp", "-a", r.dir, copied).CombinedOutput()
	require.NoError(t, err, string(out))

	repo, err := gitstore.Open(copied)
	require.NoError(t, err)
	set := gitstore.NewSet(repo)
	path := SnapshotPath(set)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	res, err := Recall(context.Background(), set, Options{Query: "deploy api fly.io", Now: r.now})
	require.NoError(t, err)
	require.Equal(t, "snapshot", res.Source, res.Fallback)
	require.NotEmpty(t, res.Hits)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after, "the snapshot was read, not rebuilt")
	_, err = os.Stat(deltaPath(path))
	require.True(t, os.IsNotExist(err), "nothing was brought forward")
}

// TestRememberBringsItsViewForward: a write's duplicate check and its
// refresh read the snapshot once; the refresh appends one segment to what
// the check read, or, when another writer changed the files in between,
// reads them again; either way the snapshot ends at the stores' tips and
// answers like a scan.
func TestRememberBringsItsViewForward(t *testing.T) {
	for _, between := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "another write in between"}[between], func(t *testing.T) {
			r := newTestRepo(t)
			r.seed()
			ctx := context.Background()
			path := SnapshotPath(r.set)
			require.NoError(t, Refresh(ctx, r.set))
			_, _, v, ok := similarInSnapshot(ctx, r.set, gitstore.ScopeProject, gitstore.TypeFact, "Invoices are numbered per tenant and year.", r.now, Access{})
			require.True(t, ok)
			require.True(t, v.unchanged(path), "nothing wrote since the check")
			var other *gitstore.Memory
			if between {
				other = r.add("Another writer: credit notes are numbered like invoices.")
				require.NoError(t, Refresh(ctx, r.set))
				require.False(t, v.unchanged(path), "a segment was appended since the check")
			}
			m := r.add("Invoices are numbered per tenant and year.")
			before, _ := os.Stat(deltaPath(path))
			require.NoError(t, refreshFrom(ctx, r.set, v, Access{}))

			after, err := openView(path, false)
			require.NoError(t, err)
			defer after.close()
			tips, err := Tips(r.set.Stores())
			require.NoError(t, err)
			require.True(t, SameTips(tips, after.tips), "the snapshot ends at the stores' tips")
			require.False(t, after.damaged)
			if before != nil {
				require.Greater(t, after.deltaSize, before.Size(), "one segment appended")
			}
			found := ids(r.recall("invoices numbered tenant year"))
			require.Contains(t, found, m.ID)
			scan := ids(r.recall("invoices numbered tenant year", func(o *Options) { o.NoIndex = true }))
			require.Equal(t, scan, found)
			if other != nil {
				require.Contains(t, ids(r.recall("credit notes numbered")), other.ID)
			}
		})
	}
}

// snapshotRepo is a seeded repository with its recall snapshot written,
// and the snapshot's path.
func snapshotRepo(t *testing.T) (*testRepo, string) {
	t.Helper()
	r := newTestRepo(t)
	r.seed()
	require.NoError(t, Refresh(context.Background(), r.set))
	return r, SnapshotPath(r.set)
}

// TestDeltaTermsFollowTheView: what a view read of a term from its delta
// (asked once, in one pass) follows the writes the view is brought
// forward by: an added memory, one revised away from the term, and a base
// memory removed.
func TestDeltaTermsFollowTheView(t *testing.T) {
	r, path := snapshotRepo(t)
	ctx := context.Background()
	term := Analyze("zeppelin")[0]
	base := r.add("The zeppelin hangar doors stick in cold weather.")
	_, err := Rebuild(ctx, r.set, nil) // in the base, not the delta
	require.NoError(t, err)
	first := r.add("Zeppelin tours leave from the north dock.")
	require.NoError(t, Refresh(ctx, r.set))

	v, err := openView(path, false)
	require.NoError(t, err)
	defer func() { v.close() }()
	require.NotZero(t, v.deltaSize)
	df := func() int {
		t.Helper()
		n, err := v.df(term)
		require.NoError(t, err)
		var docs []string
		require.NoError(t, v.postings(term, func(doc uint64, tf, _ int) {
			require.Equal(t, 1, tf)
			k, err := v.external(doc)
			require.NoError(t, err)
			docs = append(docs, k)
		}))
		require.Len(t, docs, n, "df and postings agree")
		return n
	}
	forward := func() {
		t.Helper()
		tips, err := Tips(r.set.Stores())
		require.NoError(t, err)
		nv, err := v.forward(ctx, path, r.set.Stores(), tips, Access{})
		require.NoError(t, err)
		v = nv
	}
	require.Equal(t, 2, df())

	r.add("The zeppelin museum closes on Mondays.")
	forward()
	require.Equal(t, 3, df(), "an added memory")

	_, err = r.main.Revise(ctx, gitstore.Writer{Agent: "test"}, first.ID, "Airship tours leave from the north dock.")
	require.NoError(t, err)
	forward()
	require.Equal(t, 2, df(), "a memory revised away from the term")

	_, err = r.main.Forget(ctx, gitstore.Writer{Agent: "test"}, base.ID)
	require.NoError(t, err)
	forward()
	require.Equal(t, 1, df(), "a removed memory")
}

// TestDeferredFolds: with Access.DeferFolds a write past the fold size appends
// to the delta and FoldDue says so; the next Refresh that may fold does,
// with nothing new to write; past deferredFoldAt even a deferred write
// folds.
func TestDeferredFolds(t *testing.T) {
	r, path := snapshotRepo(t)
	ctx := context.Background()
	defer func(lo, hi, d int64) { minFoldAt, maxFoldAt, deferredFoldAt = lo, hi, d }(minFoldAt, maxFoldAt, deferredFoldAt)
	minFoldAt, maxFoldAt = 1, 1
	base, err := os.ReadFile(path)
	require.NoError(t, err)
	require.False(t, FoldDue(r.set))

	deferred := Access{DeferFolds: true}
	m := r.add("The blimp hangar is heated from November to March.")
	require.NoError(t, deferred.Refresh(ctx, r.set))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, base, after, "a deferred write does not fold")
	require.True(t, FoldDue(r.set))
	res, err := Recall(ctx, r.set, Options{Query: "blimp hangar heated", Now: r.now, Access: deferred})
	require.NoError(t, err)
	require.Equal(t, "snapshot", res.Source, res.Fallback)
	require.Contains(t, ids(res), m.ID)
	require.True(t, FoldDue(r.set), "a deferred read does not fold either")

	require.NoError(t, Refresh(ctx, r.set))
	require.False(t, FoldDue(r.set))
	_, err = os.Stat(deltaPath(path))
	require.True(t, os.IsNotExist(err), "the delta was folded into the base")
	require.Contains(t, ids(r.recall("blimp hangar heated")), m.ID)

	deferredFoldAt = 1
	r.add("The blimp mooring mast was repainted in May.")
	require.NoError(t, deferred.Refresh(ctx, r.set))
	_, err = os.Stat(deltaPath(path))
	require.True(t, os.IsNotExist(err), "past deferredFoldAt a deferred write folds")
}

func TestFoldAt(t *testing.T) {
	for _, tc := range []struct{ base, lo, hi int64 }{
		{0, 16 << 10, 16 << 10},
		{500 << 10, 16 << 10, 30 << 10},
		{5 << 20, 60 << 10, 80 << 10},
		{60 << 20, 230 << 10, 270 << 10},
		{10 << 30, 1 << 20, 1 << 20},
	} {
		require.GreaterOrEqual(t, foldAt(tc.base), tc.lo, tc.base)
		require.LessOrEqual(t, foldAt(tc.base), tc.hi, tc.base)
	}
}

// TestPostingsAmong: a view reads a term's postings among some documents
// as the documents' share of its full postings: the base's exactly those
// asked about that hold the term (dropped ones left out), and every
// document the delta added with it.
func TestPostingsAmong(t *testing.T) {
	r, path := snapshotRepo(t)
	ctx := context.Background()
	var base []*gitstore.Memory
	for i := range 40 {
		text := fmt.Sprintf("Generated note %d on the quay crane schedule.", i)
		if i%3 == 0 {
			text = fmt.Sprintf("The zeppelin hangar %d opens at dawn.", i)
		}
		base = append(base, r.add(text))
	}
	_, err := Rebuild(ctx, r.set, nil)
	require.NoError(t, err)
	r.add("Zeppelin tours leave from the north dock.")
	_, err = r.main.Forget(ctx, gitstore.Writer{Agent: "test"}, base[3].ID)
	require.NoError(t, err)
	require.NoError(t, Refresh(ctx, r.set))
	v, err := openView(path, false)
	require.NoError(t, err)
	defer v.close()
	require.NotEmpty(t, v.added, "a delta with an added document")
	require.NotEmpty(t, v.dropped, "and a dropped one")

	term := Analyze("zeppelin")[0]
	all := map[uint64]posting{}
	require.NoError(t, v.postings(term, func(doc uint64, tf, dl int) { all[doc] = posting{doc, tf, dl} }))
	every := make([]uint64, v.docNumbers())
	for i := range every {
		every[i] = uint64(i)
	}
	holding := slices.Sorted(maps.Keys(all))
	nbase := uint64(v.base.Docs())
	for _, tc := range []struct {
		name string
		docs []uint64
	}{
		{"none", nil},
		{"every document", every},
		{"those holding the term", holding},
		{"one holding it", holding[1:2]},
		{"every third", slices.Collect(func(yield func(uint64) bool) {
			for i := uint64(0); i < uint64(len(every)); i += 3 {
				if !yield(i) {
					return
				}
			}
		})},
		{"none holding it", slices.DeleteFunc(slices.Clone(every), func(d uint64) bool { _, ok := all[d]; return ok })},
		{"the last base document", []uint64{nbase - 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[uint64]posting{}
			require.NoError(t, v.postingsAmong(term, tc.docs, func(doc uint64, tf, dl int) {
				require.NotContains(t, got, doc, "a document once")
				got[doc] = posting{doc, tf, dl}
			}))
			for doc, p := range got {
				require.Equal(t, all[doc], p, "a posting of the full list")
				require.True(t, doc >= nbase || slices.Contains(tc.docs, doc), "base document %d was not asked about", doc)
			}
			for _, doc := range tc.docs {
				if p, ok := all[doc]; ok {
					require.Equal(t, p, got[doc], "document %d holds the term", doc)
				}
			}
		})
	}
}
