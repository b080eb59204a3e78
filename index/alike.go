package index

import (
	"sort"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Alike returns the memories of ms that a write of m to their store would
// find alike: current, of m's type, other than m, and at least
// DuplicateSimilarity similar, most similar first. A reviewer reads them
// beside a proposal: the memories it would reinforce or replace.
func Alike(ms []*gitstore.Memory, m *gitstore.Memory, now time.Time) []*gitstore.Memory {
	if m == nil {
		return nil
	}
	sm := skeleton(m.Text)
	type hit struct {
		m   *gitstore.Memory
		sim float64
	}
	var hits []hit
	for _, o := range ms {
		if o == nil || o.ID == m.ID || o.Type != m.Type || !o.Current(now) {
			continue
		}
		if s := skeletonSimilarity(sm, skeleton(o.Text)); s >= DuplicateSimilarity {
			hits = append(hits, hit{o, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].sim > hits[j].sim })
	out := make([]*gitstore.Memory, len(hits))
	for i, h := range hits {
		out[i] = h.m
	}
	return out
}
