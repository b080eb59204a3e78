package index

import (
	"bytes"
	"errors"
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
	type near struct{ before, after sittingSide }
	sides := make(map[string]*near, len(at))
	type source struct {
		key     string
		scope   []byte
		created int64
	}
	sources := make([]source, 0, len(at))
	for k, c := range at {
		sides[k] = &near{}
		scope, _, _ := strings.Cut(k, ":")
		sources = append(sources, source{k, []byte(scope + ":"), c})
	}
	closer := func(s *sittingSide, key []byte, created int64, better bool) {
		switch {
		case s.key == "" || better:
			*s = sittingSide{key: string(key), created: created, ties: 1}
		case created == s.created:
			s.ties++
		}
	}
	err := sc.scanCreated(func(key []byte, created int64) {
		for _, src := range sources {
			if created == src.created || !bytes.HasPrefix(key, src.scope) || string(key) == src.key {
				continue
			}
			n := sides[src.key]
			if created < src.created && created >= src.created-gap {
				closer(&n.before, key, created, n.before.key != "" && created > n.before.created)
			} else if created > src.created && created <= src.created+gap {
				closer(&n.after, key, created, n.after.key != "" && created < n.after.created)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][2]string, len(at))
	for k, n := range sides {
		var pair [2]string
		for i, s := range [2]sittingSide{n.before, n.after} {
			if s.ties == 1 {
				pair[i] = s.key
			}
		}
		out[k] = pair
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
