package gitstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// pushPatience bounds how long a push keeps pulling, merging and pushing
// again while other clones' pushes land first. Time, not a count: with many
// writers on one remote each round trip takes longer, and a count ran out
// while every writer was still making progress.
var pushPatience = 5 * time.Minute

// pushBackoff is the wait before retry attempt (0-based) after losing a race
// for the remote's ref: exponential backoff in slots of one round trip (the
// last fetch, merge and push), a window of 1, 2, 4 then 8 slots, with full
// jitter, so that writers that lost the same race spread out instead of
// meeting again, whatever the remote's and the machine's speed. The window
// stops growing at 8 slots: a wider one only leaves the remote idle.
func pushBackoff(attempt int, slot time.Duration) time.Duration {
	slot = max(slot, 20*time.Millisecond)
	window := slot << min(attempt, 3)
	return time.Duration(rand.Int64N(int64(window)))
}

// PullOptions tune a pull.
type PullOptions struct {
	TransportOptions
	// NoFetch merges what the last fetch brought (a plain git fetch with the
	// refspec of git mem share) without contacting the remote.
	NoFetch bool
}

// PullResult says what a pull did.
type PullResult struct {
	Remote *Remote
	// Fetched is the remote's memory tip; zero when it has none.
	Fetched Hash
	// Merge is what merging it did to refs/memory/main (nil when the remote
	// has no memory).
	Merge *MergeResult
	// NoFetch: the remote was not contacted (PullOptions.NoFetch).
	NoFetch bool
	// Rewritten: the fetched history held purged memories and was rewritten
	// without them; the rewrite is what was merged, and what the tracking ref
	// now points at. A push then replaces the remote's history.
	Rewritten bool
	// TeammatePurged are the memories the remote's tombstones say were
	// purged, removed here from every memory ref's history.
	TeammatePurged []string
}

// Pull fetches the remote's refs/memory/main into refs/memory/remotes/<remote>/main
// and merges it into refs/memory/main, memory by memory (see Merge). Memories
// whose ids are listed in git config mem.purged (multi-valued: purged here,
// maybe not yet on the remote or in teammates' clones) are left out, so a
// purged secret does not come back through a merge.
func (r *Repo) Pull(ctx context.Context, w Writer, rem *Remote, opt PullOptions) (*PullResult, error) {
	res := &PullResult{Remote: rem, NoFetch: opt.NoFetch}
	var err error
	if opt.NoFetch {
		res.Fetched, err = r.refs.read(rem.TrackingRef())
	} else {
		res.Fetched, err = r.fetch(ctx, rem, opt.TransportOptions)
	}
	if err != nil || res.Fetched.IsZero() {
		return res, err
	}
	cfg, err := r.gitConfigList(ctx)
	if err != nil {
		return res, err
	}
	var drop []string
	for _, v := range cfg["mem.purged"] {
		drop = append(drop, strings.ToLower(strings.TrimSpace(v)))
	}
	theirs, teammate, err := r.honourTombstones(ctx, res.Fetched, drop)
	res.TeammatePurged = teammate
	if err != nil {
		return res, err
	}
	if theirs != res.Fetched {
		res.Rewritten = true
		// the fetched history still holds purged text: keep it unreachable
		for attempt := 0; attempt < maxAttempts; attempt++ {
			cur, err := r.refs.read(rem.TrackingRef())
			if err != nil {
				return res, err
			}
			if err = r.refs.update(rem.TrackingRef(), theirs, cur); !errors.Is(err, errRefMoved) {
				if err != nil {
					return res, err
				}
				break
			}
		}
	}
	st := NewStore(r, RefMain, ScopeProject)
	res.Merge, err = st.merge(ctx, w, theirs, mergeOptions{From: rem.Display, TheirRef: rem.TrackingRef(), Drop: drop})
	return res, err
}

// PushOptions tune a push.
type PushOptions struct {
	TransportOptions
	// Force overwrites the remote's memory even when it has commits this
	// repository lacks (after git mem forget --purge). The push still uses
	// --force-with-lease against the value just read from the remote, so a
	// push that lands in between is not lost silently.
	Force bool
	// Verify runs the repository's pre-push hook (git config mem.pushVerify);
	// by default it is skipped, as hooks are about code, not memory.
	Verify bool

	// replace is the remote tip a pull rewrote without purged memories: the
	// push replaces it, with a lease on it.
	replace *Hash
}

// PushResult says what a push did.
type PushResult struct {
	Remote *Remote
	// Old is the remote's memory before the push (as last known), New after.
	Old, New Hash
	UpToDate bool
	Forced   bool
	// Pulls are the merges made because the remote moved (one per retry).
	Pulls []*PullResult
}

// Push sends refs/memory/main to the remote's refs/memory/main, and nothing
// else (never refs/memory/private). When the remote has memory this
// repository lacks, the push is rejected by git; Push then waits a jittered,
// growing moment, pulls, merges and pushes again, for up to pushPatience (a
// remote ref locked by a concurrent push is retried the same way). It never
// forces unless opt.Force.
func (r *Repo) Push(ctx context.Context, w Writer, rem *Remote, opt PushOptions) (*PushResult, error) {
	res := &PushResult{Remote: rem}
	give := time.Now().Add(pushPatience)
	attempt := 0
	roundTrip := time.Now() // when the last pull, merge and push began
	for ; ; attempt++ {
		local, err := r.refs.read(RefMain)
		if err != nil {
			return nil, err
		}
		if local.IsZero() {
			return nil, &memerr.NothingToPushError{Remote: rem.Display}
		}
		tracking, err := r.refs.read(rem.TrackingRef())
		if err != nil {
			return nil, err
		}
		res.Old = tracking
		var lease *Hash
		switch {
		case opt.Force:
			cur, err := r.lsRemote(ctx, rem, opt.TransportOptions)
			if err != nil {
				return nil, err
			}
			lease, res.Old, res.Forced = &cur, cur, cur != local
		case opt.replace != nil:
			lease, res.Old, res.Forced = opt.replace, *opt.replace, *opt.replace != local
		}
		status, err := r.pushOnce(ctx, rem, opt.TransportOptions, lease, opt.Verify)
		if err != nil {
			return nil, err
		}
		switch status {
		case pushDone, pushUpToDate:
			res.New, res.UpToDate = local, status == pushUpToDate
			if tracking != local {
				// Record what the remote now holds, as git does for remote-tracking refs.
				if err := r.refs.update(rem.TrackingRef(), local, tracking); err != nil && !errors.Is(err, errRefMoved) {
					return nil, err
				}
			}
			return res, nil
		}
		if time.Now().After(give) {
			break
		}
		switch status {
		case pushStale:
			if opt.Force {
				continue // the remote moved between ls-remote and push: read it again
			}
			fallthrough // the remote moved since the pull that rewrote it: pull again
		case pushLocked, pushMoved:
			if err := sleepCtx(ctx, pushBackoff(attempt, time.Since(roundTrip))); err != nil {
				return nil, err
			}
			roundTrip = time.Now()
			pull, err := r.Pull(ctx, w, rem, PullOptions{TransportOptions: opt.TransportOptions})
			if err != nil {
				return nil, err
			}
			res.Pulls = append(res.Pulls, pull)
			opt.replace = nil
			if pull.Rewritten {
				f := pull.Fetched
				opt.replace = &f
			}
			if now, err := r.refs.read(RefMain); err == nil && now == pull.Fetched {
				// the remote already holds everything (another clone pushed it): no push needed
				res.New, res.UpToDate = now, true
				return res, nil
			}
		}
	}
	return nil, &memerr.BusyError{Op: memerr.BusyPush, Remote: rem.Display,
		Reason: fmt.Sprintf("%s kept moving while pushing (%d attempts in %v)", rem.Display, attempt+1, pushPatience)}
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SyncResult says what a sync did.
type SyncResult struct {
	Pull *PullResult
	// Push is nil when there was nothing to push.
	Push *PushResult
}

// Sync pulls the remote's memory, merges it, and pushes the result when the
// remote lacks something. A second sync with nothing new changes nothing.
func (r *Repo) Sync(ctx context.Context, w Writer, rem *Remote, t TransportOptions, verify bool) (*SyncResult, error) {
	pull, err := r.Pull(ctx, w, rem, PullOptions{TransportOptions: t})
	if err != nil {
		return nil, err
	}
	res := &SyncResult{Pull: pull}
	local, err := r.refs.read(RefMain)
	if err != nil {
		return nil, err
	}
	if local.IsZero() || local == pull.Fetched {
		return res, nil
	}
	opt := PushOptions{TransportOptions: t, Verify: verify}
	if pull.Rewritten {
		opt.replace = &pull.Fetched
	}
	res.Push, err = r.Push(ctx, w, rem, opt)
	return res, err
}
