package gitstore

import (
	"context"
	"strings"
	"time"
)

// This file holds the git facts recall needs about the code, not the memory
// refs: which files the worktree is changing (ranking boost), as git status
// says (except for a worktree proven clean from its files, worktree.go).
// Which files changed since a memory's anchor commit (staleness) is
// index's (index/pathchanges.go). Without git (or outside a worktree) they
// report nothing.

// CommitTime returns the committer time of a commit of this repository.
func (r *Repo) CommitTime(h Hash) (time.Time, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When, nil
}

// gitTimeout bounds one git invocation made for recall.
const gitTimeout = 3 * time.Second

// statusArgs are the arguments of the git status that lists the files the
// worktree is changing.
var statusArgs = []string{"status", "--porcelain=v1", "-z", "--untracked-files=normal", "--no-renames"}

// StartWorktreeStatus starts, in the background, the look at the worktree
// WorktreeStatus returns (the proof of a clean worktree, else git status,
// a process of its own): a session-start hook starts it as soon
// as it knows the repository and reads its caches meanwhile. The next
// WorktreeStatus waits for it; the one after that looks again.
func (r *Repo) StartWorktreeStatus(ctx context.Context) {
	done := make(chan struct{})
	var data []byte
	var err error
	go func() {
		defer close(done)
		data, err = r.worktreeStatus(ctx)
	}()
	r.statusMu.Lock()
	r.status = func() ([]byte, error) {
		<-done
		return data, err
	}
	r.statusMu.Unlock()
}

// WorktreeStatus is the output of git status --porcelain=v1 -z
// --untracked-files=normal --no-renames: the one StartWorktreeStatus
// started, if any, else a new one.
func (r *Repo) WorktreeStatus(ctx context.Context) ([]byte, error) {
	r.statusMu.Lock()
	started := r.status
	r.status = nil
	r.statusMu.Unlock()
	if started != nil {
		return started()
	}
	return r.worktreeStatus(ctx)
}

// WorktreeChanges lists the files the worktree is changing: modified, staged,
// added or untracked, relative to HEAD.
func (r *Repo) WorktreeChanges(ctx context.Context) ([]string, error) {
	data, err := r.WorktreeStatus(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rec := range strings.Split(string(data), "\x00") {
		if len(rec) > 3 {
			out = append(out, rec[3:])
		}
	}
	return out, nil
}

// WorktreeChangesLater runs WorktreeChanges in the background and returns a
// function that waits for its paths (none when git status failed), so that
// a caller reads the store meanwhile; it may be called any number of times.
func (r *Repo) WorktreeChangesLater(ctx context.Context) func() []string {
	done := make(chan struct{})
	var paths []string
	go func() {
		defer close(done)
		paths, _ = r.WorktreeChanges(ctx)
	}()
	return func() []string {
		<-done
		return paths
	}
}
