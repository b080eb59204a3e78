package handoff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// A session start needs, besides the memories relevant to the task (the
// index answers that), a few kinds of memory that no query finds: handoffs,
// preferences and pinned memories, the ids of memories written by
// subagents, and the most recent memories (the fallback when there is
// nothing to search for). Reading every memory of a large store for them
// costs far more than the rest of a hook, so they are kept in a cache file,
// <git common dir>/mem/cache/start.json, that records the commit of each
// store it reflects and is brought up to date by diffing trees (the cost
// follows the change, not the store). Deleting it is always safe.
//
// The file is read in parts: its first line (a JSON document) holds the
// tips, the subagent keys and how many standing and recent memories
// follow, one a line ("scope SP" and the memory's document, decoded by
// gitstore's own reader: encoding/json took most of a start's reading of
// the cache). Every session start shows the standing memories; a start
// reads the recent ones only when nothing matched its branch and files,
// and a start with matches leaves them undecoded. A start that brings the
// cache forward appends what changed as one more line (a journal entry:
// the tips it starts from and ends at, and the memories put and removed,
// in order) instead of rewriting the file; a reader applies each entry
// that starts from the tips it has reached. Past maxJournal entries, the
// next change rewrites the file.

// startCacheVersion changes whenever the cache's layout or selection does.
const startCacheVersion = 4

// maxJournal is how many journal lines the cache takes before it is
// rewritten.
const maxJournal = 16

// recentKept is how many of the most recently changed memories the cache
// keeps; below recentMin after removals, it is rebuilt.
const (
	recentKept = 100
	recentMin  = maxRelevant
)

type cachedMem struct {
	Scope gitstore.Scope   `json:"scope"`
	M     *gitstore.Memory `json:"m"`
}

// startCache is the cache file: its head, the standing memories and,
// once decoded, the recent ones.
type startCache struct {
	startCacheHead
	// Standing are handoffs, preferences and pinned memories.
	Standing map[string]cachedMem
	// Recent are the most recently changed other memories; nil until
	// decoded from recentLines.
	Recent map[string]cachedMem

	recentLines [][]byte
	// pending are the journal's changes not yet applied to Recent (which
	// is decoded only when asked for); journaled counts the journal lines
	pending   []cacheOp
	journaled int
	// ops are the changes made since the cache was read, when journal
	// records them (false once the cache must be rewritten whole)
	ops     []cacheOp
	journal bool
}

// startCacheHead is the first line of the cache file.
type startCacheHead struct {
	Version int `json:"version"`
	// Tips maps each store (scope) to the commit the cache reflects.
	Tips map[gitstore.Scope]string `json:"tips"`
	// Subagent are the keys of memories written by subagents.
	Subagent map[string]bool `json:"subagent"`
	// NStanding and NRecent count the memory lines that follow.
	NStanding int `json:"standing"`
	NRecent   int `json:"recent"`
}

// newStartCache is an empty cache.
func newStartCache() *startCache {
	return &startCache{
		startCacheHead: startCacheHead{Version: startCacheVersion, Tips: map[gitstore.Scope]string{}, Subagent: map[string]bool{}},
		Standing:       map[string]cachedMem{}, Recent: map[string]cachedMem{},
	}
}

// cacheOp is one change of a journal entry: a memory put, or a key
// removed.
type cacheOp struct {
	Put *cachedMem `json:"put,omitempty"`
	Del string     `json:"del,omitempty"`
}

// journalEntry is a journal line: the changes that bring the cache from
// tips From to tips To.
type journalEntry struct {
	From map[gitstore.Scope]string `json:"from"`
	To   map[gitstore.Scope]string `json:"to"`
	Ops  []cacheOp                 `json:"ops"`
}

// journalLine is a journal entry as read: its memories' documents are
// left raw for gitstore.DecodeMemory, which reads a memory without
// reflection. Decoding a journalEntry, encoding/json would set up its
// encoders and decoders for the memory type and all it holds first: in a
// session start after a write, most of the time spent on the journal.
type journalLine struct {
	From map[gitstore.Scope]string `json:"from"`
	To   map[gitstore.Scope]string `json:"to"`
	Ops  []struct {
		Put *struct {
			Scope gitstore.Scope  `json:"scope"`
			M     json.RawMessage `json:"m"`
		} `json:"put,omitempty"`
		Del string `json:"del,omitempty"`
	} `json:"ops"`
}

// decodeJournalEntry reads a journal line; false when it is torn or holds
// a memory that is not a valid document.
func decodeJournalEntry(line []byte) (journalEntry, bool) {
	var l journalLine
	if json.Unmarshal(line, &l) != nil {
		return journalEntry{}, false
	}
	e := journalEntry{From: l.From, To: l.To, Ops: make([]cacheOp, 0, len(l.Ops))}
	for _, op := range l.Ops {
		if op.Put == nil {
			e.Ops = append(e.Ops, cacheOp{Del: op.Del})
			continue
		}
		m, err := gitstore.DecodeMemory(op.Put.M)
		if err != nil {
			return journalEntry{}, false
		}
		e.Ops = append(e.Ops, cacheOp{Put: &cachedMem{Scope: op.Put.Scope, M: m}, Del: op.Del})
	}
	return e, true
}

// readStartCache reads the first line of the cache file; nil when it is
// missing, unreadable or of another version.
func readStartCache(path string) *startCache {
	head, standingLines, recentLines, journal, ok := splitStartCache(path)
	if !ok {
		return nil
	}
	c := &startCache{startCacheHead: head, recentLines: recentLines}
	standing := make(map[string]cachedMem, len(standingLines))
	for _, line := range standingLines {
		e, ok := decodeCachedLine(line)
		if !ok {
			return nil
		}
		standing[cacheKey(e.Scope, e.M.ID)] = e
	}
	c.Standing = standing
	for _, line := range journal {
		c.journaled++
		e, ok := decodeJournalEntry(line)
		if !ok || !maps.Equal(e.From, c.Tips) {
			continue // torn, or written from other tips: caught up by diffs
		}
		for _, op := range e.Ops {
			c.apply(op, false)
		}
		c.pending = append(c.pending, e.Ops...)
		c.Tips = e.To
	}
	return c
}

// splitStartCache reads the cache file into its head and its standing,
// recent and journal lines, decoding only the head; ok is false when the
// file is missing, damaged or of another version.
func splitStartCache(path string) (head startCacheHead, standing, recent, journal [][]byte, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return head, nil, nil, nil, false
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if json.Unmarshal(first, &head) != nil || head.Version != startCacheVersion || head.Tips == nil ||
		head.NStanding < 0 || head.NRecent < 0 || head.NStanding+head.NRecent > bytes.Count(rest, []byte("\n")) {
		return head, nil, nil, nil, false // damaged, or counting more lines than the file holds
	}
	if head.Subagent == nil {
		head.Subagent = map[string]bool{}
	}
	standing = make([][]byte, 0, head.NStanding)
	for range head.NStanding {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		standing = append(standing, line)
	}
	for range head.NRecent {
		var line []byte
		if line, rest, _ = bytes.Cut(rest, []byte("\n")); len(line) == 0 {
			return head, nil, nil, nil, false // cut short
		}
		recent = append(recent, line)
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(line) > 0 && line[0] != '{' {
			return head, nil, nil, nil, false // a memory line the head did not count: damaged
		}
		journal = append(journal, line)
	}
	return head, standing, recent, journal, true
}

// JournalWrites brings the start cache forward over the writes this
// process has just made: one journal entry, diffed from the tips the cache
// reflects while the writer's repository still holds the trees it changed,
// which the next session start would otherwise read again (after a write,
// that catch-up was the largest part of a start). The standing and recent
// lines are not decoded; a full journal is rewritten whole, as a start
// would. A missing or damaged cache, a store new to it or emptied, and any
// error are left to the next session start.
func JournalWrites(ctx context.Context, set *gitstore.Set) {
	path := cachePath(set)
	if path == "" {
		return
	}
	head, _, _, journal, ok := splitStartCache(path)
	if !ok {
		return
	}
	if len(journal) >= maxJournal {
		_, _, _, _ = startMemories(ctx, set, set.Repo.Now())
		return
	}
	tips := head.Tips
	for _, line := range journal {
		var e struct {
			From map[gitstore.Scope]string `json:"from"`
			To   map[gitstore.Scope]string `json:"to"`
		}
		if json.Unmarshal(line, &e) == nil && maps.Equal(e.From, tips) {
			tips = e.To
		}
	}
	c := &startCache{
		startCacheHead: startCacheHead{Tips: maps.Clone(tips), Subagent: map[string]bool{}},
		Standing:       map[string]cachedMem{}, journal: true,
	}
	for _, st := range set.Stores() {
		if ctx.Err() != nil {
			return
		}
		tip, err := st.Tip()
		if err != nil {
			return
		}
		old, had := tips[st.Scope]
		if had && old == tip.String() {
			continue
		}
		from, fromOK := gitstore.HashOf(old)
		if !had || !fromOK || old == "" || tip.IsZero() {
			return // a store new to the cache, or emptied: rewritten by a start
		}
		if err := c.journalDiff(st, from, tip); err != nil {
			return
		}
	}
	if len(c.ops) > 0 || !maps.Equal(c.Tips, tips) {
		c.appendJournal(path, tips)
	}
}

// journalDiff records the changes of st from commit from to commit to, as
// update does for a journalled catch-up.
func (c *startCache) journalDiff(st *gitstore.Store, from, to gitstore.Hash) error {
	ids, removed, err := st.Diff(from, to)
	if err != nil {
		return err
	}
	rd, err := st.Read()
	if err != nil {
		return err
	}
	if err := c.changes(st.Scope, rd, ids, removed); err != nil {
		return err
	}
	c.Tips[st.Scope] = to.String()
	return nil
}

// decodeCachedLine reads a memory line: its scope, a space and its
// document.
func decodeCachedLine(line []byte) (cachedMem, bool) {
	scope, doc, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return cachedMem{}, false
	}
	m, err := gitstore.DecodeMemory(doc)
	if err != nil {
		return cachedMem{}, false
	}
	return cachedMem{Scope: gitstore.Scope(scope), M: m}, true
}

// appendCachedLine appends e's line.
func appendCachedLine(out []byte, e cachedMem) ([]byte, bool) {
	doc, err := e.M.Encode()
	if err != nil {
		return out, false
	}
	out = append(append(out, e.Scope...), ' ')
	return append(out, bytes.TrimSpace(doc)...), true
}

// apply applies one journalled change, to the recent memories too when
// withRecent.
func (c *startCache) apply(op cacheOp, withRecent bool) {
	switch {
	case op.Del != "":
		delete(c.Standing, op.Del)
		delete(c.Subagent, op.Del)
		if withRecent {
			delete(c.Recent, op.Del)
		}
	case op.Put != nil && op.Put.M != nil:
		k := cacheKey(op.Put.Scope, op.Put.M.ID)
		if IsSubagent(op.Put.M) {
			c.Subagent[k] = true
		}
		switch {
		case isStanding(op.Put.M):
			c.Standing[k] = *op.Put
		case withRecent && op.Put.M.Type != gitstore.TypeSession && op.Put.M.ValidTo == nil:
			c.Recent[k] = *op.Put
		}
	}
}

// recent decodes the recent memories once; false when one is broken (the
// caller rebuilds the cache).
func (c *startCache) recent() bool {
	if c.Recent != nil {
		return true
	}
	c.Recent = make(map[string]cachedMem, len(c.recentLines))
	lines := c.recentLines
	c.recentLines = nil
	for _, line := range lines {
		e, ok := decodeCachedLine(line)
		if !ok {
			c.Recent = map[string]cachedMem{}
			return false
		}
		c.Recent[cacheKey(e.Scope, e.M.ID)] = e
	}
	for _, op := range c.pending {
		c.apply(op, true)
	}
	c.pending = nil
	return true
}

func cacheKey(scope gitstore.Scope, id string) string { return string(scope) + "/" + id }

func cachePath(set *gitstore.Set) string {
	if set.Repo == nil || set.Repo.CommonDir == "" {
		return ""
	}
	return set.Repo.Mem().StartCache()
}

func isStanding(m *gitstore.Memory) bool {
	return m.Type == gitstore.TypeHandoff || m.Type == gitstore.TypePreference || m.Pinned
}

// startMemories returns the handoffs, preferences, pinned and subagent
// memories of the set, current at now, from the cache kept up to date, and
// a function returning its recent memories, which decodes them only when
// called.
func startMemories(ctx context.Context, set *gitstore.Set, now time.Time) (standing []cachedMem, recentMs func() []cachedMem, subagent map[string]bool, err error) {
	path := cachePath(set)
	var c *startCache
	if path != "" {
		c = readStartCache(path)
	}
	if c == nil {
		c = newStartCache()
	}
	seen := map[gitstore.Scope]bool{}
	stores := set.Stores()
	tips := make([]string, len(stores))
	changed := false
	for i, st := range stores {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		seen[st.Scope] = true
		tip, err := st.Tip()
		if err != nil {
			return nil, nil, nil, err
		}
		tips[i] = tip.String()
		if old, had := c.Tips[st.Scope]; !had || old != tips[i] {
			changed = true
		}
	}
	// a change is journalled when the recent memories were read whole
	// (without decoding them) and the journal has room; else the cache is
	// rewritten
	from := maps.Clone(c.Tips)
	c.journal = changed && c.Recent == nil && c.journaled < maxJournal
	if changed && !c.journal && !c.recent() {
		// a recent memory is broken: start over
		c = newStartCache()
	}
	for i, st := range stores {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		old, had := c.Tips[st.Scope]
		if had && old == tips[i] {
			continue
		}
		if err := c.update(st, old, tips[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	if c.journal {
		if path != "" && !c.appendJournal(path, from) {
			os.Remove(path) // the next start rebuilds it
		}
		c.pending = append(c.pending, c.ops...)
		changed = false
	}
	// a store this set does not see (the personal store, read by another
	// caller) keeps its entries: they are filtered out below, not dropped
	if changed && len(c.Recent) < recentMin {
		// removals thinned the recent list: read it again in full
		for _, st := range set.Stores() {
			c.drop(st.Scope)
			tip, err := st.Tip()
			if err != nil {
				return nil, nil, nil, err
			}
			if err := c.update(st, "", tip.String()); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if changed {
		c.trimRecent()
		if path != "" {
			c.save(path)
		}
	}
	for _, e := range c.Standing {
		if seen[e.Scope] && !e.M.Retired(now) {
			standing = append(standing, e)
		}
	}
	subagent = map[string]bool{}
	for k := range c.Subagent {
		if seen[gitstore.Scope(k[:strings.Index(k, "/")])] {
			subagent[k] = true
		}
	}
	byNewest(standing)
	recentMs = func() []cachedMem {
		if !c.recent() && path != "" {
			os.Remove(path) // broken: the next start rebuilds it
		}
		var out []cachedMem
		for _, e := range c.Recent {
			if seen[e.Scope] && !e.M.Retired(now) {
				out = append(out, e)
			}
		}
		byNewest(out)
		return out
	}
	return standing, recentMs, subagent, nil
}

// byNewest sorts memories by last change, newest first.
func byNewest(xs []cachedMem) {
	sort.Slice(xs, func(i, j int) bool {
		if !xs[i].M.Updated.Equal(xs[j].M.Updated) {
			return xs[i].M.Updated.After(xs[j].M.Updated)
		}
		return xs[i].M.ID < xs[j].M.ID
	})
}

// update brings one store's entries from commit old ("" or unknown: none)
// to tip.
func (c *startCache) update(st *gitstore.Store, old, tip string) error {
	zero := gitstore.HashOf
	to, ok := zero(tip)
	if !ok {
		return nil
	}
	if to.IsZero() {
		c.unjournal()
		c.drop(st.Scope)
		c.Tips[st.Scope] = tip
		return nil
	}
	rd, err := st.Read()
	if err != nil {
		return err
	}
	from, ok := zero(old)
	var ids, removed []string
	if ok && old != "" {
		ids, removed, err = st.Diff(from, to)
	}
	if !ok || old == "" || err != nil {
		c.unjournal() // a store read in full is written whole
		c.drop(st.Scope)
		all, err := rd.All()
		if err != nil {
			return err
		}
		for _, m := range all {
			c.put(st.Scope, m)
		}
		c.Tips[st.Scope] = tip
		return nil
	}
	if err := c.changes(st.Scope, rd, ids, removed); err != nil {
		return err
	}
	c.Tips[st.Scope] = tip
	return nil
}

// changes records a diff of a store: the memories removed, and the ones
// added or changed as rd reads them now (gone from it: removed).
func (c *startCache) changes(scope gitstore.Scope, rd *gitstore.Reader, ids, removed []string) error {
	for _, id := range removed {
		c.remove(cacheKey(scope, id))
	}
	for _, id := range ids {
		m, err := rd.Get(id)
		if errors.Is(err, memerr.ErrNotFound) {
			c.remove(cacheKey(scope, id))
			continue
		}
		if err != nil {
			return err
		}
		c.remove(cacheKey(scope, id))
		c.put(scope, m)
	}
	return nil
}

func (c *startCache) put(scope gitstore.Scope, m *gitstore.Memory) {
	c.change(cacheOp{Put: &cachedMem{scope, m}})
}

func (c *startCache) remove(k string) { c.change(cacheOp{Del: k}) }

// change applies op, and records it when the catch-up is journalled (the
// recent memories, not decoded then, get it when they are).
func (c *startCache) change(op cacheOp) {
	if c.journal {
		c.ops = append(c.ops, op)
	}
	c.apply(op, c.Recent != nil)
}

// unjournal turns a journalled catch-up into a rewrite: the recent
// memories are decoded and given the changes made so far.
func (c *startCache) unjournal() {
	if !c.journal {
		return
	}
	c.journal = false
	if !c.recent() {
		c.Recent = map[string]cachedMem{} // rebuilt below, as it is too thin
	}
	for _, op := range c.ops {
		c.apply(op, true)
	}
	c.ops = nil
}

// appendJournal appends the changes since tips from as one line, with a
// single write so that concurrent starts never interleave; false when it
// could not.
func (c *startCache) appendJournal(path string, from map[gitstore.Scope]string) bool {
	line, err := json.Marshal(journalEntry{From: from, To: c.Tips, Ops: c.ops})
	if err != nil {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false
	}
	_, werr := f.Write(append(line, '\n'))
	return errors.Join(werr, f.Close()) == nil
}

func (c *startCache) drop(scope gitstore.Scope) {
	prefix := string(scope) + "/"
	for _, mp := range []map[string]cachedMem{c.Standing, c.Recent} {
		for k := range mp {
			if len(k) > len(prefix) && k[:len(prefix)] == prefix {
				delete(mp, k)
			}
		}
	}
	for k := range c.Subagent {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			delete(c.Subagent, k)
		}
	}
	delete(c.Tips, scope)
}

// trimRecent keeps the recentKept most recently changed memories.
func (c *startCache) trimRecent() {
	if len(c.Recent) <= recentKept {
		return
	}
	keys := make([]string, 0, len(c.Recent))
	for k := range c.Recent {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.Recent[keys[i]].M, c.Recent[keys[j]].M
		if !a.Updated.Equal(b.Updated) {
			return a.Updated.After(b.Updated)
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[recentKept:] {
		delete(c.Recent, k)
	}
}

func (c *startCache) save(path string) {
	head := c.startCacheHead
	head.NStanding, head.NRecent = len(c.Standing), len(c.Recent)
	data, err := json.Marshal(head)
	if err != nil {
		return
	}
	data = append(data, '\n')
	// in key order, so that the same cache is the same file
	for _, mp := range []map[string]cachedMem{c.Standing, c.Recent} {
		for _, k := range slices.Sorted(maps.Keys(mp)) {
			var ok bool
			if data, ok = appendCachedLine(data, mp[k]); !ok {
				return
			}
			data = append(data, '\n')
		}
	}
	_ = lockfile.WriteAtomic(path, data, 0o600) // a cache: a failed save is rebuilt next time
}

// ScrubCaches rebuilds every cache that holds memory text (the search
// index, the recall snapshot), removes the start cache and drops the
// vectors of memories that are gone, after a purge
// rewrote history: a purged memory's text must not outlive it on disk.
func ScrubCaches(ctx context.Context, set *gitstore.Set) error {
	if p := cachePath(set); p != "" {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if index.Dir(set) == "" {
		return nil
	}
	if _, err := index.Rebuild(ctx, set, nil); err != nil {
		return err
	}
	return index.PruneVectors(ctx, set)
}

// FinishPurge does what follows a purge's rewrite of repo's history, for
// every surface that purges: it records the purge in git config mem.purged
// (so that a pull never merges the memory back in), rebuilds the caches
// that held the text from the rewritten history, and removes the purge's
// marker. Each error says what was done and what to do.
func FinishPurge(ctx context.Context, set *gitstore.Set, repo *gitstore.Repo, id string) error {
	if repo.GitDir != "" {
		if err := repo.RecordPurged(ctx, id); err != nil {
			return fmt.Errorf("purged, but could not record it in git config mem.purged (a pull may bring it back): %w", err)
		}
	}
	if err := ScrubCaches(ctx, set); err != nil {
		return fmt.Errorf("purged, but could not rebuild the caches that held the text (delete %s and run git mem reindex): %w", index.Dir(set), err)
	}
	if err := repo.PurgeFinished(id); err != nil {
		return fmt.Errorf("purged, but could not remove its marker %s (delete it): %w", repo.Mem().PurgeMarker(id), err)
	}
	return nil
}

// DropCaches removes the caches that hold memory texts (the start cache,
// the recall snapshot and its delta, the search index) without rebuilding
// them: a purge drops them before it rewrites history, so that it leaves
// none behind however it is stopped; the next reader rebuilds them.
func DropCaches(set *gitstore.Set) error {
	paths := []string{cachePath(set)}
	if snap := index.SnapshotPath(set); snap != "" {
		paths = append(paths, snap, snap+".delta") // memdir.Dir.SnapshotDelta
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return index.RemoveIndex(set)
}
