package bleveindex

import (
	"context"
	"fmt"
	"testing"

	"github.com/git-mem/git-mem/index"
)

// BenchmarkRecallCorpora recalls at 10,000 generated memories from the
// bleve index and from the snapshot, on the same store in one run (the index
// package's BenchmarkRecall measures the snapshot alone, on a cached store):
//
//	go test ./index/bleveindex -run '^$' -bench RecallCorpora -benchtime 100x
func BenchmarkRecallCorpora(b *testing.B) {
	r := newTestRepo(b)
	r.seed()
	r.genMemories(10000, 11)
	queries := []string{
		"why does requireAdmin throw after login", "stripe webhook signature error in production",
		"flaky playwright test timeout in ci pipeline", "deploy a release to staging with docker",
		"postgres migration deadlock on the booking table",
	}
	ctx := context.Background()
	for _, engine := range []index.Engine{Engine{}, nil} {
		name := "snapshot"
		if engine != nil {
			name = "bleve"
		}
		b.Run(fmt.Sprintf("%s/10000", name), func(b *testing.B) {
			index.UseEngine(engine)
			defer index.UseEngine(Engine{})
			want := name
			if engine != nil {
				want = "index"
			}
			if res, err := index.Recall(ctx, r.Set, index.Options{Query: queries[0]}); err != nil || res.Source != want {
				b.Fatalf("%v %+v", err, res)
			}
			i := 0
			for b.Loop() {
				if _, err := index.Recall(ctx, r.Set, index.Options{Query: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
