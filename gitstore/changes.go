package gitstore

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// This file holds the git facts recall needs about the code, not the memory
// refs: which files changed since a memory's anchor commit (staleness) and
// which files the worktree is changing (ranking boost). Walking file history
// by hand means diffing trees commit by commit; the git CLI does it with
// its commit-graph and pathspec machinery, so these use the git executable
// (except for a worktree proven clean from its files, worktree.go). Without one (or outside a worktree) they report nothing.

// CommitTime returns the committer time of a commit of this repository.
func (r *Repo) CommitTime(h Hash) (time.Time, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When, nil
}

// PathState is what happened to one file since an anchor commit.
type PathState struct {
	// Commits is how many commits after the anchor, up to HEAD, touched it.
	Commits int
	// Missing reports that it is not in the worktree any more.
	Missing bool
}

// gitTimeout bounds one git invocation made for recall.
const gitTimeout = 3 * time.Second

// PathChanges reports, for each repository-relative path (a file or a
// directory), how many commits after anchor up to HEAD touched it, and
// whether it is missing from the worktree. It fails when anchor is not a
// commit of this repository (another clone, rewritten history).
func (r *Repo) PathChanges(ctx context.Context, anchor string, paths []string) (map[string]PathState, error) {
	out := map[string]PathState{}
	if len(paths) == 0 {
		return out, nil
	}
	if _, ok := parseHash(anchor); !ok {
		return nil, fmt.Errorf("%w: anchor %q is not a commit id", ErrInvalid, anchor)
	}
	args := []string{"log", "--no-renames", "--format=format:@@", "--name-only", anchor + "..HEAD", "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	data, err := r.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	var inCommit map[string]bool
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "@@":
			inCommit = map[string]bool{}
		case line == "" || inCommit == nil:
		default:
			for _, p := range paths {
				if !inCommit[p] && (line == p || strings.HasPrefix(line, strings.TrimSuffix(p, "/")+"/")) {
					inCommit[p] = true
					counts[p]++
				}
			}
		}
	}
	for _, p := range paths {
		st := PathState{Commits: counts[p]}
		if _, err := os.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(p))); err != nil {
			st.Missing = true
		}
		out[p] = st
	}
	return out, nil
}

// FileExists reports whether a repository-relative path exists in the worktree.
func (r *Repo) FileExists(p string) bool {
	if r.WorkTree == "" || p == "" || path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
		return false
	}
	_, err := os.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(path.Clean(p))))
	return err == nil
}

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
