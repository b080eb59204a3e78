package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
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

// startCacheVersion changes whenever the cache's layout or selection does.
const startCacheVersion = 1

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

type startCache struct {
	Version int `json:"version"`
	// Tips maps each store (scope) to the commit the cache reflects.
	Tips map[gitstore.Scope]string `json:"tips"`
	// Standing are handoffs, preferences and pinned memories.
	Standing map[string]cachedMem `json:"standing"`
	// Recent are the most recently changed other memories.
	Recent map[string]cachedMem `json:"recent"`
	// Subagent are the keys of memories written by subagents.
	Subagent map[string]bool `json:"subagent"`
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

// startMemories returns the handoffs, preferences, pinned, recent and
// subagent memories of the set, current at now, from the cache kept up to date.
func startMemories(ctx context.Context, set *gitstore.Set, now time.Time) (standing, recentMs []cachedMem, subagent map[string]bool, err error) {
	path := cachePath(set)
	c := &startCache{}
	if path != "" {
		if data, err := os.ReadFile(path); err == nil {
			if json.Unmarshal(data, c) != nil || c.Version != startCacheVersion {
				c = &startCache{}
			}
		}
	}
	if c.Tips == nil {
		c = &startCache{Version: startCacheVersion, Tips: map[gitstore.Scope]string{}, Standing: map[string]cachedMem{}, Recent: map[string]cachedMem{}, Subagent: map[string]bool{}}
	}
	changed := false
	seen := map[gitstore.Scope]bool{}
	for _, st := range set.Stores() {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		seen[st.Scope] = true
		tip, err := st.Tip()
		if err != nil {
			return nil, nil, nil, err
		}
		old, had := c.Tips[st.Scope]
		if had && old == tip.String() {
			continue
		}
		changed = true
		if err := c.update(st, old, tip.String()); err != nil {
			return nil, nil, nil, err
		}
	}
	// a store this set does not see (the personal store, read by another
	// caller) keeps its entries: they are filtered out below, not dropped
	if len(c.Recent) < recentMin && changed {
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
	c.trimRecent()
	if changed && path != "" {
		c.save(path)
	}
	for _, e := range c.Standing {
		if seen[e.Scope] && !e.M.Retired(now) {
			standing = append(standing, e)
		}
	}
	for _, e := range c.Recent {
		if seen[e.Scope] && !e.M.Retired(now) {
			recentMs = append(recentMs, e)
		}
	}
	subagent = map[string]bool{}
	for k := range c.Subagent {
		if seen[gitstore.Scope(k[:strings.Index(k, "/")])] {
			subagent[k] = true
		}
	}
	byNewest := func(xs []cachedMem) {
		sort.Slice(xs, func(i, j int) bool {
			if !xs[i].M.Updated.Equal(xs[j].M.Updated) {
				return xs[i].M.Updated.After(xs[j].M.Updated)
			}
			return xs[i].M.ID < xs[j].M.ID
		})
	}
	byNewest(standing)
	byNewest(recentMs)
	return standing, recentMs, subagent, nil
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
	for _, id := range removed {
		c.remove(cacheKey(st.Scope, id))
	}
	for _, id := range ids {
		m, err := rd.Get(id)
		if errors.Is(err, gitstore.ErrNotFound) {
			c.remove(cacheKey(st.Scope, id))
			continue
		}
		if err != nil {
			return err
		}
		c.remove(cacheKey(st.Scope, id))
		c.put(st.Scope, m)
	}
	c.Tips[st.Scope] = tip
	return nil
}

func (c *startCache) put(scope gitstore.Scope, m *gitstore.Memory) {
	k := cacheKey(scope, m.ID)
	if IsSubagent(m) {
		c.Subagent[k] = true
	}
	switch {
	case isStanding(m):
		c.Standing[k] = cachedMem{scope, m}
	case m.Type != gitstore.TypeSession && m.ValidTo == nil:
		c.Recent[k] = cachedMem{scope, m}
	}
}

func (c *startCache) remove(k string) {
	delete(c.Standing, k)
	delete(c.Recent, k)
	delete(c.Subagent, k)
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
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	_ = gitstore.WriteFileAtomic(path, data, 0o600) // a cache: a failed save is rebuilt next time
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
