package gitstore

import (
	"context"

	"github.com/git-mem/git-mem/internal/gitworktree"
)

// A session-start hook must know which files the worktree is changing, and
// git status, a process of its own, is then the longest part of the hook.
// Most sessions start in a clean worktree, which internal/gitworktree
// proves clean from files alone, as git status would; anything else runs
// git status.

var errWorktreeUnproven = gitworktree.ErrUnproven

// maxProvenEntries is the number of tracked files past which git status
// decides.
const maxProvenEntries = gitworktree.MaxEntries

// worktreeStatus is git status's output (statusArgs), or nothing when the
// worktree is provably clean without it.
func (r *Repo) worktreeStatus(ctx context.Context) ([]byte, error) {
	if r.proveWorktreeClean(ctx) == nil {
		return nil, nil
	}
	return r.Git(ctx, statusArgs...)
}

// proveWorktreeClean proves that the worktree has nothing git status would
// list; an error means changed or not proven.
func (r *Repo) proveWorktreeClean(ctx context.Context) error {
	return gitworktree.ProveClean(ctx, gitworktree.Repo{
		WorkTree: r.WorkTree, GitDir: r.GitDir, CommonDir: r.CommonDir, Config: r.config,
		HeadTree: func() (Hash, bool) {
			commit, ok := parseHash(r.Head().Commit)
			if !ok {
				return zeroHash, false // unborn branch or unreadable HEAD
			}
			c, err := r.readCommit(commit)
			if err != nil {
				return zeroHash, false
			}
			return c.TreeHash, true
		},
	})
}
