package index

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"time"
)

// A sitting is the run of memories one writer left in a store at one time:
// the notes of an agent's session, the turns of a conversation, the
// commits of an afternoon. A memory the question matches is often the
// setting and not the answer ("what made you pick that agency?" is answered
// by the note written after it), so the memories written just before and
// just after a returned one come with it, ranked below it and labelled by
// their own evidence (none: weak). A caller that asks only for likely or
// strong matches never sees them.
const (
	// sittingGap is the most time between two memories of one sitting.
	sittingGap = 30 * time.Minute
	// sittingShare is a neighbour's score as a share of the returned
	// memory's it was written beside: below it, above the weakest matches.
	sittingShare = 0.5
)

// createdScanner lists every live memory's key and creation time (Unix
// seconds), in no order.
type createdScanner interface {
	scanCreated(fn func(key []byte, created int64)) error
}

// sittingSide is the nearest memory written on one side of another: its
// key, creation time and how many memories share that time (more than one:
// no order tells which is next, so none is).
type sittingSide struct {
	key     string
	created int64
	ties    int
}

// sittingOf finds, for each key of at (its creation time), the memory of
// the same store written nearest before it and nearest after it within
// sittingGap; "" for a side with none, or with several written at the same
// second.
func sittingOf(sc createdScanner, at map[string]int64) (map[string][2]string, error) {
	if len(at) == 0 {
		return nil, nil
	}
	gap := int64(sittingGap / time.Second)
	type source struct {
		key           string
		scope         []byte
		created       int64
		before, after sittingSide
	}
	sources := make([]source, 0, len(at))
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for k, c := range at {
		scope, _, _ := strings.Cut(k, ":")
		sources = append(sources, source{key: k, scope: []byte(scope + ":"), created: c})
		lo, hi = min(lo, c-gap), max(hi, c+gap)
	}
	closer := func(s *sittingSide, key []byte, created int64, better bool) {
		switch {
		case s.key == "" || better:
			*s = sittingSide{key: string(key), created: created, ties: 1}
		case created == s.created:
			s.ties++
		}
	}
	// most memories were written far from every source: one comparison
	// each, so that a scan of the store costs little more than reading it
	err := sc.scanCreated(func(key []byte, created int64) {
		if created < lo || created > hi {
			return
		}
		for i := range sources {
			src := &sources[i]
			if created < src.created-gap || created > src.created+gap || created == src.created ||
				!bytes.HasPrefix(key, src.scope) {
				continue
			}
			if created < src.created {
				closer(&src.before, key, created, src.before.key != "" && created > src.before.created)
			} else {
				closer(&src.after, key, created, src.after.key != "" && created < src.after.created)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][2]string, len(at))
	for _, src := range sources {
		var pair [2]string
		for i, side := range [2]sittingSide{src.before, src.after} {
			if side.ties == 1 {
				pair[i] = side.key
			}
		}
		out[src.key] = pair
	}
	return out, nil
}

func (c *scanCorpus) scanCreated(fn func(key []byte, created int64)) error {
	for _, e := range c.list {
		fn([]byte(e.key), e.m.Created.Unix())
	}
	return nil
}

func (v *snapView) scanCreated(fn func(key []byte, created int64)) error {
	return v.scanSummaries(func(key, _ []byte, created, _ int64) { fn(key, created) })
}

// addSittings adds to hits the sitting neighbours of the best limit of
// them (see sittingShare), or raises a neighbour already among them to
// that score. A neighbour is returned as any memory is: current (unless
// asked for history), not excluded, trusted enough; it carries its own
// confidence, zero when the question matched nothing of it.
func addSittings(c loader, sc createdScanner, hits []Hit, o *Options, touched map[string]bool) ([]Hit, error) {
	sources := hits[:min(o.Limit, len(hits))]
	at := make(map[string]int64, len(sources))
	index := make(map[string]int, len(hits))
	for i, h := range hits {
		index[docKey(h.Scope, h.Memory.ID)] = i
	}
	for _, h := range sources {
		at[docKey(h.Scope, h.Memory.ID)] = h.Memory.Created.Unix()
	}
	near, err := sittingOf(sc, at)
	if err != nil {
		return nil, err
	}
	n := len(sources)
	for i := range n {
		src := hits[i]
		for _, key := range near[docKey(src.Scope, src.Memory.ID)] {
			if key == "" {
				continue
			}
			score := sittingShare * src.Score
			if j, ok := index[key]; ok {
				hits[j].Score = max(hits[j].Score, score)
				continue
			}
			en, err := c.load(key)
			if errors.Is(err, ErrNoDocument) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if en == nil || !keep(en.m, o) {
				continue
			}
			if _, trust := finalScore(0, 0, en.m, o, touched, o.Tuning); trust < o.MinTrust {
				continue
			}
			index[key] = len(hits)
			hits = append(hits, Hit{Memory: en.m, Scope: en.scope, Score: score, Trust: en.m.EffectiveTrust(o.Now)})
		}
	}
	return hits, nil
}
