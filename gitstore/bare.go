package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-mem/git-mem/memerr"
)

// OpenBare opens the bare repository at dir by its path alone: no
// discovery upwards, no GIT_DIR, as the personal store is opened. With
// create it is initialised when missing (in the formats git-mem writes)
// and created reports that; without, a missing repository is
// memerr.ErrEmptyStore. A linked store's local copy is such a repository.
func OpenBare(dir string, create bool) (r *Repo, created bool, err error) {
	if !isGitDir(dir) {
		if !create {
			return nil, false, memerr.ErrEmptyStore
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, false, fmt.Errorf("cannot create the repository at %s: %w", dir, err)
		}
		cmd := exec.Command("git", "init", "-q", "--bare", dir)
		cmd.Env = append(os.Environ(), InitFormatEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, false, fmt.Errorf("cannot create the repository at %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
		}
		created = true
	}
	r, err = openGitDir(dir, "")
	if err != nil {
		return nil, false, err
	}
	r.isolated = true
	return r, created, nil
}
