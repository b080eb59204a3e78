package index

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

func TestPhrasings(t *testing.T) {
	require.Equal(t, []string{"a b", "c"}, phrasings(" a b ", []string{"", "c", "a b"}))
	require.Len(t, phrasings("q", []string{"1", "2", "3", "4", "5", "6"}), MaxPhrasings)
	require.Empty(t, phrasings("", nil))
}

func TestFuseHits(t *testing.T) {
	hit := func(id string, conf float64) Hit {
		return Hit{Memory: &gitstore.Memory{ID: id}, Scope: gitstore.ScopeProject, Confidence: conf}
	}
	cases := []struct {
		name    string
		lists   [][]Hit
		limit   int
		want    []string
		conf    map[string]float64
		matched int
	}{
		{"one phrasing keeps its order", [][]Hit{{hit("a", .9), hit("b", .6)}}, 10, []string{"a", "b"}, nil, 2},
		{"found by several comes first", [][]Hit{{hit("a", .9), hit("b", .6)}, {hit("b", .7), hit("c", .8)}}, 10, []string{"b", "a", "c"}, map[string]float64{"b": .7}, 3},
		{"a tie goes to the more confident", [][]Hit{{hit("a", .6)}, {hit("c", .8)}}, 10, []string{"c", "a"}, nil, 2},
		{"limit", [][]Hit{{hit("a", .9), hit("b", .6)}, {hit("c", .8)}}, 1, []string{"a"}, nil, 3},
		{"nothing", [][]Hit{nil, nil}, 10, nil, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, matched := fuseHits(tc.lists, tc.limit)
			var ids []string
			for _, h := range got {
				ids = append(ids, h.Memory.ID)
				if c, ok := tc.conf[h.Memory.ID]; ok {
					require.Equal(t, c, h.Confidence, "a memory keeps its best confidence")
				}
			}
			require.Equal(t, tc.want, ids)
			require.Equal(t, tc.matched, matched)
		})
	}
}

// TestRecallAlsoPhrasings: another phrasing finds a memory the first one
// misses, through the snapshot, and a recall with the same phrasing twice
// answers as with one.
func TestRecallAlsoPhrasings(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	plain := r.recall("where does the api run in production")
	both := r.recall("where does the api run in production", func(o *Options) { o.Also = []string{"fly.io deploy github actions"} })
	require.Equal(t, "snapshot", both.Source, both.Fallback)
	require.NotEmpty(t, both.Hits)
	require.Contains(t, both.Hits[0].Memory.Text, "Fly.io")
	require.GreaterOrEqual(t, len(both.Hits), len(plain.Hits))
	same := r.recall("fly.io deploy github actions", func(o *Options) { o.Also = []string{"fly.io deploy github actions"} })
	require.Equal(t, ids(r.recall("fly.io deploy github actions")), ids(same))
}
