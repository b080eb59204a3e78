package index

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Which files changed since a memory's anchor commit is a git fact about
// the code, not the memory refs. Walking file history by hand means diffing
// trees commit by commit; the git CLI does it with its commit-graph and
// pathspec machinery, so PathChanges runs git log (gitstore.Repo.Git).

// PathState is what happened to one file since an anchor commit.
type PathState struct {
	// Commits is how many commits after the anchor, up to HEAD, touched it.
	Commits int
	// Missing reports that it is not in the worktree any more.
	Missing bool
}

// PathChanges reports, for each repository-relative path (a file or a
// directory), how many commits after anchor up to HEAD touched it, and
// whether it is missing from the worktree. It fails when anchor is not a
// commit of this repository (another clone, rewritten history).
func PathChanges(ctx context.Context, r *gitstore.Repo, anchor string, paths []string) (map[string]PathState, error) {
	out := map[string]PathState{}
	if len(paths) == 0 {
		return out, nil
	}
	if _, ok := gitstore.HashOf(anchor); !ok || anchor == "" {
		return nil, fmt.Errorf("%w: anchor %q is not a commit id", memerr.ErrInvalid, anchor)
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

// fileExists reports whether a repository-relative path exists in the worktree.
func fileExists(r *gitstore.Repo, p string) bool {
	if r.WorkTree == "" || p == "" || path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
		return false
	}
	_, err := os.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(path.Clean(p))))
	return err == nil
}
