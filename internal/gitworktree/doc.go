// Package gitworktree owns the proof that a worktree is clean as git
// status would find it, from files alone: git's index file (versions 2 to
// 4, its cached tree), the stat data it records against the files', and
// the untracked files walked under the ignore rules (internal/gitignore).
// Whatever it does not cover as git would (a submodule, a sparse checkout,
// a split index, a racy timestamp, a large worktree) is ErrUnproven, and
// the caller runs git status.
//
// It is held against real git by differential tests: the index git writes
// is read entry by entry as git ls-files shows it, and gitstore's
// TestWorktreeProof compares the proof with git status on every kind of
// change (new, ignored, re-included, modified, deleted, racy files, nested
// ignore files, submodules, symbolic links).
package gitworktree
