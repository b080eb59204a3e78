package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/git-mem/git-mem/internal/memdir"
	"github.com/git-mem/git-mem/memerr"
)

// Mem is the layout of the repository's <git dir>/mem (internal/memdir).
func (r *Repo) Mem() memdir.Dir {
	if r == nil {
		return memdir.Dir{}
	}
	return memdir.New(r.CommonDir, r.GitDir)
}

// Git runs the git command in the repository's worktree, without taking
// optional locks (a hook must not block the user's own git), within
// gitTimeout, and returns its standard output.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	if r.WorkTree == "" {
		return nil, fmt.Errorf("%w: no worktree", memerr.ErrNoRepo)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.WorkTree}, args...)...)
	cmd.Env = r.gitEnv("GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
