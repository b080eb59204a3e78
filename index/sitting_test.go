package index

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestSittings: explicit recall returns the memory written just before or
// just after a matching one, in the same sitting, below it and labelled
// weak; never one written long apart, one of several written at the same
// second, one excluded, or at a point that asks for likely matches; on the
// scan and on the snapshot alike.
func TestSittings(t *testing.T) {
	type note struct {
		text  string
		after time.Duration // after the question's memory (negative: before)
	}
	const question = "What made you pick the Elmwood adoption agency?"
	const asked = "Why did Caroline pick the Elmwood adoption agency"
	tests := []struct {
		name  string
		notes []note
		mod   func(*Options, map[string]*gitstore.Memory)
		want  []string
	}{
		{
			name:  "the answer written next",
			notes: []note{{"They help queer folks with their paperwork, which mattered to me.", time.Minute}},
			want:  []string{question, "They help queer folks with their paperwork, which mattered to me."},
		},
		{
			name:  "the setting written before",
			notes: []note{{"It took months of reading brochures.", -time.Minute}},
			want:  []string{question, "It took months of reading brochures."},
		},
		{
			name:  "only the nearest on each side",
			notes: []note{{"Two minutes later: the paperwork is long.", 2 * time.Minute}, {"One minute later: the staff were kind.", time.Minute}},
			want:  []string{question, "One minute later: the staff were kind."},
		},
		{
			name:  "written long apart",
			notes: []note{{"Weeks later I painted a sunset.", 2 * time.Hour}},
			want:  []string{question},
		},
		{
			name:  "several at the same second: no order",
			notes: []note{{"The staff were kind.", time.Minute}, {"The paperwork is long.", time.Minute}},
			want:  []string{question},
		},
		{
			name:  "excluded",
			notes: []note{{"They help queer folks with their paperwork.", time.Minute}},
			mod: func(o *Options, m map[string]*gitstore.Memory) {
				o.Exclude = map[string]bool{m["They help queer folks with their paperwork."].ID: true}
			},
			want: []string{question},
		},
		{
			name:  "likely or better asked",
			notes: []note{{"They help queer folks with their paperwork.", time.Minute}},
			mod: func(o *Options, _ map[string]*gitstore.Memory) {
				o.MinConfidence = ptr(LabelThreshold(LabelLikely))
			},
			want: []string{question},
		},
	}
	for _, tc := range tests {
		for _, noIndex := range []bool{true, false} {
			name := tc.name + map[bool]string{true: " (scan)", false: " (snapshot)"}[noIndex]
			t.Run(name, func(t *testing.T) {
				r := newTestRepo(t)
				start := r.now
				mems := map[string]*gitstore.Memory{}
				r.now = start.Add(-3 * time.Hour)
				r.add("Unrelated: the kiln in the garage needs a new fuse.")
				r.now = start
				mems[question] = r.add(question)
				for _, n := range tc.notes {
					r.now = start.Add(n.after)
					mems[n.text] = r.add(n.text)
				}
				r.now = start.Add(3 * time.Hour)
				res := r.recall(asked, func(o *Options) {
					o.NoIndex = noIndex
					o.NoStale = true
					if tc.mod != nil {
						tc.mod(o, mems)
					}
				})
				if !noIndex {
					require.Equal(t, "snapshot", res.Source)
				}
				require.Equal(t, tc.want, texts(res))
				for _, h := range res.Hits[1:] {
					require.Equal(t, LabelWeak, ConfidenceLabel(h.Confidence), "a neighbour carries no evidence of its own")
					require.Less(t, h.Score, res.Hits[0].Score)
				}
			})
		}
	}
}
