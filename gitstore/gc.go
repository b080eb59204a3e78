package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// git's defaults for gc.auto and gc.autoPackLimit.
const (
	gcAutoDefault          = 6700
	gcAutoPackLimitDefault = 50
)

// needsGC reports whether "git gc --auto" has work to do, estimated the way
// git estimates it: more loose objects than gc.auto (counted in the
// objects/17 directory, one 256th of them), or more packs than
// gc.autoPackLimit, and no collection is running. gc.auto 0 turns automatic
// collection off. Every memory
// written leaves a few loose objects (a blob, trees, a commit), so a store
// that is never packed grows by tens of thousands of files.
func (r *Repo) needsGC() bool {
	if r.CommonDir == "" {
		return false
	}
	c := r.Config()
	auto := gcAutoDefault
	packLimit := gcAutoPackLimitDefault
	if c != nil {
		auto = c.Int("gc", "auto", gcAutoDefault)
		packLimit = c.Int("gc", "autoPackLimit", gcAutoPackLimitDefault)
	}
	if auto <= 0 {
		return false
	}
	// a collection is running (git holds gc.pid meanwhile; git itself
	// ignores one older than 12 hours)
	if st, err := os.Stat(filepath.Join(r.CommonDir, "gc.pid")); err == nil && time.Since(st.ModTime()) < 12*time.Hour {
		return false
	}
	objects := filepath.Join(r.CommonDir, "objects")
	if entries, err := os.ReadDir(filepath.Join(objects, "17")); err == nil {
		limit := (auto + 255) / 256
		n := 0
		for _, e := range entries {
			if len(e.Name()) == 38 && isHex(e.Name()) {
				if n++; n > limit {
					return true
				}
			}
		}
	}
	if packLimit > 0 {
		if packs, err := filepath.Glob(filepath.Join(objects, "pack", "*.pack")); err == nil {
			kept := 0
			for _, p := range packs {
				if _, err := os.Stat(strings.TrimSuffix(p, ".pack") + ".keep"); err == nil {
					kept++
				}
			}
			if len(packs)-kept > packLimit {
				return true
			}
		}
	}
	return false
}

// AutoGC runs "git gc --auto" on the repository when needsGC says it has
// work. It starts git in the background and returns at once, unless
// gc.autoDetach is false and wait allows it, in which case it waits as git
// itself would. Writers call it after a write; hooks never do (their
// deadline is the agent's time).
func (r *Repo) AutoGC(ctx context.Context, wait bool) error {
	if !r.needsGC() {
		return nil
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("packing the memory objects: %w", err)
	}
	args := []string{"--git-dir", r.CommonDir, "gc", "--auto", "--quiet"}
	if wait && r.Config() != nil && !r.Config().Bool("gc", "autoDetach", true) {
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Env = r.gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git gc --auto: %w: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	cmd := exec.Command(git, args...)
	cmd.Env = r.gitEnv()
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git gc --auto: %w", err)
	}
	return cmd.Process.Release()
}
