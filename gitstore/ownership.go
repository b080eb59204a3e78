package gitstore

import (
	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/git-mem/git-mem/memerr"

	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkOwnership applies git's safe.directory rule to a repository found at
// gitDir (worktree, when not bare): each of them must belong to the user,
// unless the system, global or command-line configuration (never the
// repository's own) names the directory in safe.directory, or "*".
func checkOwnership(gitDir, workTree string) error {
	dir := workTree
	if dir == "" {
		dir = gitDir
	}
	for _, p := range []string{workTree, gitDir} {
		if p == "" {
			continue
		}
		if owned, ok := ownedByUser(p); !ok || owned {
			continue
		}
		if safeDirectory(dir) {
			return nil
		}
		return &memerr.OwnershipError{Dir: dir, Path: p}
	}
	return nil
}

// safeDirectory reports whether safe.directory, as git reads it from the
// system and global files and git -c, names dir: "*", the directory, or a
// prefix of it ending in "/*"; an empty value forgets the ones before it.
func safeDirectory(dir string) bool {
	var values []string
	for _, e := range gitconfig.Load("").Entries() {
		if e.Name == "safe.directory" {
			values = append(values, e.Value)
		}
	}
	values = append(values, commandLineSettings("safe.directory")...)
	dir = filepath.Clean(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	safe := false
	home, _ := os.UserHomeDir()
	for _, v := range values {
		switch {
		case v == "":
			safe = false
			continue
		case v == "*":
			safe = true
			continue
		}
		if rest, ok := strings.CutPrefix(v, "~/"); ok && home != "" {
			v = filepath.Join(home, rest)
		}
		if prefix, ok := strings.CutSuffix(v, "/*"); ok {
			if p := filepath.Clean(prefix); dir == p || strings.HasPrefix(dir, p+string(filepath.Separator)) {
				safe = true
			}
			continue
		}
		if filepath.Clean(v) == dir {
			safe = true
		}
	}
	return safe
}

// commandLineSettings returns the values of key given to a calling git by
// git -c (GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n). The
// older GIT_CONFIG_PARAMETERS form is read for its plain 'key=value' items.
func commandLineSettings(key string) []string {
	var out []string
	for _, item := range strings.Fields(os.Getenv("GIT_CONFIG_PARAMETERS")) {
		item = strings.Trim(item, "'")
		if k, v, ok := strings.Cut(item, "="); ok && strings.EqualFold(strings.Trim(k, "'"), key) {
			out = append(out, strings.Trim(v, "'"))
		}
	}
	n := 0
	fmt.Sscan(os.Getenv("GIT_CONFIG_COUNT"), &n)
	for i := 0; i < n; i++ {
		if strings.EqualFold(os.Getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)), key) {
			out = append(out, os.Getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)))
		}
	}
	return out
}
