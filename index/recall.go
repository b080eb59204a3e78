package index

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// DefaultLimit is how many memories a recall returns unless told otherwise.
const DefaultLimit = 10

// Options of one recall.
type Options struct {
	// Query is free text: a question, a prompt, an error message, code.
	Query string
	// Also are other phrasings of the same need (at most MaxPhrasings-1
	// are used): each is recalled and the results are fused (fuse.go).
	Also []string
	// Limit is the most memories returned (DefaultLimit when 0).
	Limit int
	// All includes superseded and expired memories.
	All bool
	// AsOf, when set, reads each store as it was at that time (transaction
	// time); the index is not used.
	AsOf *time.Time
	// ValidAt, when set, returns what was true at that time, superseded
	// facts included (valid time).
	ValidAt *time.Time
	// Now is the time trust, recency and validity are computed at; zero is time.Now().
	Now time.Time
	// Branch is the checked-out branch: memories written on it rank higher.
	Branch string
	// Touched are repository paths the worktree is changing: memories about
	// them rank higher.
	Touched []string
	// TouchedBy, when set, gives Touched, asked once the candidates are
	// scored: the caller's git status runs while the store is read. It may
	// be asked again for each phrasing of a need (make it remember).
	TouchedBy func() []string
	// MinTrust drops memories whose effective trust is lower (hooks use 0.40).
	MinTrust float64
	// Exclude lists memory ids not to return (already shown).
	Exclude map[string]bool
	// NoStale skips the staleness check (git) of the returned memories.
	NoStale bool
	// NoIndex scans the store instead of using the index or the snapshot.
	NoIndex bool
	// Point is how sure recall must be before it answers: Explicit (the
	// zero value) for a caller who asked, Injection for the hooks.
	Point Point
	// MinConfidence, when set, replaces the point's threshold; 0 is no
	// threshold at all (every candidate the ranking finds).
	MinConfidence *float64
	// Progress, when set, is told how a full rebuild of the index advances
	// (the first recall in a repository, or after history was rewritten).
	Progress Progress

	// Access is how this process reads and writes the recall snapshot
	// (the zero value: a command's).
	Access Access
	// Terms, when not nil, are o.Query's terms as QueryTerms gives them:
	// a caller that analysed the query already (to tell whether it is
	// worth recalling) passes its analysis down instead of having it done
	// again. Ignored under a Tuning and for the other phrasings (Also).
	Terms []string
	// Tuning switches parts of analysis and ranking off (the eval and the
	// confidence's fit); nil for recall as it ships.
	Tuning *Tuning
	// noEngine answers from the snapshot (or a scan) even when an engine
	// is wired in: the duplicate check of a write (see Access.Remember).
	noEngine bool
}

// Hit is one recalled memory.
type Hit struct {
	Memory *gitstore.Memory
	Scope  gitstore.Scope
	// Score is the final ranking score: relevance x (0.5 + trust) x recency x boosts.
	Score float64
	// Relevance is the normalized query match, 0..~1.5.
	Relevance float64
	// Confidence is how likely the memory is what the query is about, 0..1
	// (see Point).
	Confidence float64
	// Trust is the effective trust at Options.Now.
	Trust float64
	// Stale reports that the memory's files changed since it was written (or vanished).
	Stale       bool
	StaleReason string
	// Similarity is the cosine similarity of the memory's embedding to the
	// query's, when embeddings are configured and it was among the nearest
	// (vectors.go); 0 otherwise.
	Similarity float64
}

// Result of a recall.
type Result struct {
	Hits []Hit
	// Matched is how many memories cleared the confidence threshold and the
	// filters (Hits holds the first Limit of them).
	Matched int
	// Candidates is how many memories shared enough of the query's words
	// to be weighed by the confidence, returned or not.
	Candidates int
	// Terms are the query terms used.
	Terms []string
	// Source is "index" (the engine's), "snapshot", "scan" or "none";
	// Fallback says why the index or the snapshot was not used.
	Source   string
	Fallback string
	// Rebuilt reports that the index was rebuilt from scratch for this recall.
	Rebuilt bool
	// Embedding is "" without embeddings configured, "vectors" when the
	// vector ranking was fused in, else "lexical only: " and why not.
	Embedding string
}

// Recall returns the memories of the set most relevant to the query. It
// brings the index up to date first; when the index is busy or broken it
// scans the stores instead and returns the same answer. Bad input never
// errors: a query without usable terms returns nothing.
func Recall(ctx context.Context, set *gitstore.Set, o Options) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if len(o.Also) > 0 {
		return recallFused(ctx, set, o)
	}
	terms := o.Terms
	if terms == nil || o.Tuning != nil {
		terms = o.Tuning.analyzer().queryTerms(o.Query)
	}
	res := &Result{Terms: terms, Source: "none"}
	if len(res.Terms) == 0 || set == nil {
		return res, nil
	}
	stores := set.Stores()
	if len(stores) == 0 {
		return res, nil
	}
	var c loader
	dir := Dir(set)
	useIndex := !o.NoIndex && o.AsOf == nil && dir != "" && o.Tuning == nil
	var fallbacks []string
	if e := currentEngine(); useIndex && e != nil && !o.noEngine {
		ec, rebuilt, err := e.Open(ctx, dir, stores, o.Progress)
		res.Rebuilt = rebuilt
		if err == nil {
			defer ec.Close()
			var snap *snapView
			defer func() {
				if snap != nil {
					snap.close()
				}
			}()
			created := func() createdScanner {
				if snap == nil {
					// the engine keeps no creation times; without a
					// snapshot a recall goes without sittings
					if v, err := syncSnapshot(ctx, SnapshotPath(set), stores, o.Access); err == nil {
						snap = v
					} else {
						return nil
					}
				}
				return snap
			}
			c = engineCorpus{c: ec, created: created}
			res.Source = "index"
		} else {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			fallbacks = append(fallbacks, err.Error())
		}
	}
	if c == nil && useIndex {
		// no engine (git-mem, the hook binary), or it is busy or broken: the
		// snapshot, brought up to date in plain Go, answers the same
		path := SnapshotPath(set)
		sc, err := syncSnapshot(ctx, path, stores, o.Access)
		if err == nil {
			defer keepOrClose(o.Access, path, sc)
			c = sc
			res.Source = "snapshot"
		} else {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			fallbacks = append(fallbacks, err.Error())
		}
	}
	res.Fallback = strings.Join(fallbacks, "; ")
	if c == nil {
		at := func(s *gitstore.Store) (*gitstore.Reader, error) { return s.Read() }
		if o.AsOf != nil {
			at = func(s *gitstore.Store) (*gitstore.Reader, error) {
				h, err := s.CommitAt(*o.AsOf)
				if err != nil {
					return nil, err
				}
				return s.ReadAt(h)
			}
		}
		entries, err := readEntries(ctx, stores, at)
		if err != nil {
			return nil, err
		}
		c = newScanCorpus(entries, o.Tuning.analyzer())
		res.Source = "scan"
	}
	hits, matched, candidates, err := rankHits(c, res.Terms, &o)
	if err != nil {
		var busy bool
		if busy = errors.Is(err, ErrBusy); !busy && (res.Source == "index" || res.Source == "snapshot") {
			// a damaged index or snapshot answered badly: forget it so that
			// the next recall rebuilds it, and answer by scanning
			if res.Source == "index" {
				currentEngine().Discard(dir)
			} else {
				removeSnapshot(SnapshotPath(set))
			}
			o.NoIndex = true
			r2, err2 := Recall(ctx, set, o)
			if err2 == nil {
				r2.Fallback = err.Error()
			}
			return r2, err2
		}
		return nil, err
	}
	res.Hits, res.Matched, res.Candidates = hits, matched, candidates
	fuseVectors(ctx, set, c, &o, res) // embeddings (vectors.go): nothing when unconfigured
	if !o.NoStale && set.Repo != nil {
		markStale(ctx, set.Repo, res.Hits)
	}
	return res, nil
}

// candidatesPerResult is how many of the most relevant candidates are
// weighed by the confidence per result wanted (at least minCandidates).
const (
	candidatesPerResult = 2
	minCandidates       = 12
)

// rankHits returns the hits, how many cleared the confidence (matched) and
// how many memories shared enough of the query's words to be weighed
// (candidates).
func rankHits(c loader, terms []string, o *Options) (hits []Hit, matched, candidates int, err error) {
	top, candidates, qs, err := scoreTop(c, terms, o.Tuning, max(minCandidates, candidatesPerResult*o.Limit))
	if err != nil {
		return nil, 0, 0, err
	}
	if len(top) == 0 {
		return nil, 0, candidates, nil
	}
	touched := o.touchedPaths()
	threshold := o.Point.Threshold()
	if o.MinConfidence != nil {
		threshold = *o.MinConfidence
	}
	if o.Tuning != nil && o.Tuning.noConfidence {
		threshold = 0
	}
	// the confidence compares what is current: a superseded memory stands
	// for its replacement; asked for history too (All), the memories a
	// returned one replaced follow it
	current := *o
	current.All = false
	w := weigher{c: c, o: &current, seen: map[string]bool{}}
	returned := map[string]Hit{}
	consider := func(k weighed, conf float64) {
		m := k.en.m
		s, trust := finalScore(k.cd.rel, conf, m, o, touched, o.Tuning)
		if trust < o.MinTrust {
			return
		}
		h := Hit{Memory: m, Scope: k.en.scope, Score: s, Relevance: k.cd.rel, Confidence: conf, Trust: trust}
		returned[k.en.key] = h
		hits = append(hits, h)
	}
	// A candidate's confidence rests on its evidence alone, known before
	// its memory is read: one that cannot clear the threshold is read only
	// when a later one can, since weighing claims, in order, the memory
	// each stands for. A common word ties hundreds of memories at the last
	// candidate's relevance, and a prompt that clears nothing would read
	// every one of them.
	var waiting []int
	for next := range top {
		conf := confidenceOf(featuresOf(top[next], qs), &confidenceWeights)
		if conf < threshold {
			waiting = append(waiting, next)
			continue
		}
		for _, i := range waiting {
			if _, err := w.weigh(&top[i]); err != nil {
				return nil, 0, candidates, err
			}
		}
		waiting = waiting[:0]
		k, err := w.weigh(&top[next])
		if err != nil {
			return nil, 0, candidates, err
		}
		if k != nil {
			consider(*k, conf)
		}
	}
	if o.All {
		for _, cd := range top {
			if cd.key == "" {
				if cd.key, err = c.external(cd.doc); err != nil {
					return nil, 0, candidates, err
				}
			}
			en, err := c.load(cd.key)
			if err != nil {
				return nil, 0, candidates, err
			}
			if en == nil || !en.m.Retired(o.Now) || o.Exclude[en.m.ID] {
				continue
			}
			by, ok := returned[docKey(en.scope, en.m.SupersededBy)]
			if !ok {
				continue
			}
			s, trust := finalScore(cd.rel, by.Confidence, en.m, o, touched, o.Tuning)
			if trust < o.MinTrust {
				continue
			}
			hits = append(hits, Hit{Memory: en.m, Scope: en.scope, Score: s, Relevance: cd.rel, Confidence: by.Confidence, Trust: trust})
		}
	}
	sortHits(hits)
	if sc, ok := c.(createdScanner); ok && o.Point == Explicit && threshold <= 0 {
		if hits, err = addSittings(c, sc, hits, o, touched); err != nil {
			return nil, 0, candidates, err
		}
		sortHits(hits)
	}
	matched = len(hits)
	if len(hits) > o.Limit {
		hits = hits[:o.Limit]
	}
	return hits, matched, candidates, nil
}

// sortHits orders hits by score, ties by key.
func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return docKey(hits[i].Scope, hits[i].Memory.ID) < docKey(hits[j].Scope, hits[j].Memory.ID)
	})
}

// touchedPaths is the set of Touched paths, asking TouchedBy first.
func (o *Options) touchedPaths() map[string]bool {
	if o.TouchedBy != nil {
		o.Touched, o.TouchedBy = o.TouchedBy(), nil
	}
	touched := map[string]bool{}
	for _, p := range o.Touched {
		touched[p] = true
	}
	return touched
}

// weighed is a candidate that may be returned: its evidence (the
// candidate's scores) and the memory returned.
type weighed struct {
	cd cand
	en *entry
}

// maxReplacementHops bounds the chain of replacements followed.
const maxReplacementHops = 8

// weigher finds, candidate by candidate in order of relevance, the memory
// each may return (validity, exclusions): what the confidence compares. A
// candidate replaced by a newer memory stands for its replacement, with its
// own evidence, unless the caller asked for history (All, ValidAt): a
// question about the old fact is answered by the current one, and never by
// the old one. Each memory is weighed once, on the evidence of the first
// candidate that stands for it.
type weigher struct {
	c    loader
	o    *Options
	seen map[string]bool
}

// weigh reads the candidate (recording its key in cd) and returns what it
// stands for, or nil when it returns nothing.
func (w *weigher) weigh(cd *cand) (*weighed, error) {
	if cd.key == "" {
		key, err := w.c.external(cd.doc)
		if err != nil {
			return nil, err
		}
		cd.key = key
	}
	en, err := w.c.load(cd.key)
	if err != nil {
		return nil, err
	}
	if en == nil {
		return nil, fmt.Errorf("index: %s vanished", cd.key)
	}
	for hop := 0; !keep(en.m, w.o) && hop < maxReplacementHops; hop++ {
		if w.o.All || w.o.ValidAt != nil || en.m.SupersededBy == "" {
			return nil, nil
		}
		// the replacement may be gone (forgotten) or in another store
		next, err := w.c.load(docKey(en.scope, en.m.SupersededBy))
		if err != nil && !errors.Is(err, ErrNoDocument) {
			return nil, err
		}
		if en = next; en == nil {
			return nil, nil
		}
	}
	if !keep(en.m, w.o) || w.seen[en.key] {
		return nil, nil
	}
	w.seen[en.key] = true
	k := weighed{*cd, en}
	k.cd.key = en.key
	return &k, nil
}

// keep applies validity and exclusion.
func keep(m *gitstore.Memory, o *Options) bool {
	if o.Exclude[m.ID] {
		return false
	}
	if o.ValidAt != nil {
		return m.Current(*o.ValidAt)
	}
	return o.All || !m.Retired(o.Now)
}
