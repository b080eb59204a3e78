package gitstore

import (
	"context"
	"sort"
	"strings"
)

// After git mem share, a plain git fetch (or git pull) brings a remote's
// memory into refs/memory/remotes/<remote>/main without merging it. So that
// share means what it says, the next git-mem command merges what was
// fetched: MergeFetched finds the tracking refs refs/memory/main does not
// contain yet and merges each as git mem pull --no-fetch would. The check
// costs a ref listing and, when a tracking ref differs from the tip, a short
// walk of recent commits; the merge itself runs only when something new
// arrived.

// fetchedWalk bounds the walk that looks for a tracking tip among the
// recent commits of refs/memory/main before asking git for a merge base.
const fetchedWalk = 256

// TrackingRefPrefix is where remotes' memory is fetched to.
const TrackingRefPrefix = "refs/memory/remotes/"

// FetchedPending lists the tracking refs (refs/memory/remotes/<remote>/main)
// holding memory that refs/memory/main does not contain yet, by name.
func (r *Repo) FetchedPending(ctx context.Context) (map[string]Hash, error) {
	refs, err := r.refs.list(TrackingRefPrefix)
	if err != nil {
		return nil, err
	}
	tip, err := r.refs.read(RefMain)
	if err != nil {
		return nil, err
	}
	pending := map[string]Hash{}
	for name, h := range refs {
		if !strings.HasSuffix(name, "/main") || h.IsZero() || h == tip {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.recentlyContains(tip, h) {
			continue
		}
		pending[name] = h
	}
	return pending, nil
}

// recentlyContains reports whether h is among the fetchedWalk most recent
// commits reachable from tip. false may still mean contained (further
// back): the merge then finds it up to date.
func (r *Repo) recentlyContains(tip, h Hash) bool {
	if tip.IsZero() {
		return false
	}
	seen := map[Hash]bool{tip: true}
	queue := []Hash{tip}
	for n := 0; len(queue) > 0 && n < fetchedWalk; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == h {
			return true
		}
		commit, err := r.readCommit(c)
		if err != nil {
			return false
		}
		for _, p := range commit.ParentHashes {
			if !seen[Hash(p)] {
				seen[Hash(p)] = true
				queue = append(queue, Hash(p))
			}
		}
	}
	return false
}

// MergeFetched merges into refs/memory/main the memory fetched into
// tracking refs and not merged yet (see FetchedPending), each exactly as
// git mem pull --no-fetch does: purge tombstones and mem.purged are honoured
// first, so fetched history that still holds a purged memory is rewritten
// without it and never becomes a parent, and memories a teammate purged are
// purged here (PullResult.TeammatePurged: the caller scrubs its caches). It
// returns one result per tracking ref merged, in name order; none when
// nothing was pending.
func (r *Repo) MergeFetched(ctx context.Context, w Writer) ([]*PullResult, error) {
	if r.GitDir == "" {
		return nil, nil
	}
	pending, err := r.FetchedPending(ctx)
	if err != nil || len(pending) == 0 {
		return nil, err
	}
	names := make([]string, 0, len(pending))
	for n := range pending {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*PullResult
	for _, name := range names {
		slug := strings.TrimSuffix(strings.TrimPrefix(name, TrackingRefPrefix), "/main")
		rem := &Remote{Name: slug, Display: slug, Slug: slug, how: "fetched"}
		if rem.TrackingRef() != name {
			continue // not a ref this repository's remotes fetch into
		}
		res, err := r.Pull(ctx, w, rem, PullOptions{NoFetch: true})
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}
