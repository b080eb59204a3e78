package gitstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// MaxPushAttempts bounds how often a push pulls and merges again because the
// remote moved in between.
const MaxPushAttempts = 8

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
	Fetched plumbing.Hash
	// Merge is what merging it did to refs/memory/main (nil when the remote
	// has no memory).
	Merge *MergeResult
	// NoFetch: the remote was not contacted (PullOptions.NoFetch).
	NoFetch bool
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
		res.Fetched, err = r.Fetch(ctx, rem, opt.TransportOptions)
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
	st := NewStore(r, RefMain, ScopeProject)
	res.Merge, err = st.Merge(ctx, w, res.Fetched, MergeOptions{From: rem.Display, TheirRef: rem.TrackingRef(), Drop: drop})
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
}

// PushResult says what a push did.
type PushResult struct {
	Remote *Remote
	// Old is the remote's memory before the push (as last known), New after.
	Old, New plumbing.Hash
	UpToDate bool
	Forced   bool
	// Pulls are the merges made because the remote moved (one per retry).
	Pulls []*PullResult
}

// Push sends refs/memory/main to the remote's refs/memory/main, and nothing
// else (never refs/memory/private). When the remote has memory this
// repository lacks, the push is rejected by git; Push then pulls, merges and
// pushes again, up to MaxPushAttempts times (a remote ref locked by a
// concurrent push is retried the same way). It never forces unless
// opt.Force.
func (r *Repo) Push(ctx context.Context, w Writer, rem *Remote, opt PushOptions) (*PushResult, error) {
	res := &PushResult{Remote: rem}
	for attempt := 0; attempt < MaxPushAttempts; attempt++ {
		local, err := r.refs.read(RefMain)
		if err != nil {
			return nil, err
		}
		if local.IsZero() {
			return nil, fmt.Errorf("%w: nothing to push: this repository has no project memory yet (git mem add, or git mem pull %s)", ErrEmptyStore, rem.Display)
		}
		tracking, err := r.refs.read(rem.TrackingRef())
		if err != nil {
			return nil, err
		}
		res.Old = tracking
		var lease *plumbing.Hash
		if opt.Force {
			cur, err := r.LsRemote(ctx, rem, opt.TransportOptions)
			if err != nil {
				return nil, err
			}
			lease, res.Old, res.Forced = &cur, cur, cur != local
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
		case pushStale:
			if attempt+1 < MaxPushAttempts {
				continue // the remote moved between ls-remote and push: read it again
			}
		case pushLocked, pushMoved:
			time.Sleep(time.Duration(rand.IntN(50*(attempt+1))) * time.Millisecond)
			pull, err := r.Pull(ctx, w, rem, PullOptions{TransportOptions: opt.TransportOptions})
			if err != nil {
				return nil, err
			}
			res.Pulls = append(res.Pulls, pull)
		}
	}
	return nil, fmt.Errorf("%w: %s kept moving while pushing (%d attempts); run git mem sync %s again", ErrBusy, rem.Display, MaxPushAttempts, rem.Display)
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
	res.Push, err = r.Push(ctx, w, rem, PushOptions{TransportOptions: t, Verify: verify})
	return res, err
}
