package gitstore

import (
	"context"
	"strings"
	"time"
)

// A partial clone (git clone --filter=blob:none) has commits and trees
// whose blobs stay on its promisor remote until something reads them: git
// fetches each on demand. Memory a plain git fetch brought into one (after
// git mem share) arrives so, and git-mem's own object reader, which never
// talks to a remote, would take its documents for lost. On a miss in such
// a repository git-mem asks git for the object, which fetches it as it
// fetches any, and reads it again.

// lazyFetchTimeout bounds one fetch of a missing object from the promisor
// remote.
const lazyFetchTimeout = 20 * time.Second

// promisor reports whether the repository is a partial clone: a remote
// marked remote.<name>.promisor, or extensions.partialClone (older gits).
func promisor(c *Config) bool {
	for _, e := range c.Entries() {
		if strings.HasPrefix(e.Name, "remote.") && strings.HasSuffix(e.Name, ".promisor") && isTrue(e.Value) {
			return true
		}
		if e.Name == "extensions.partialclone" && e.Value != "" {
			return true
		}
	}
	return false
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// fetchMissing has git fetch the object h from the promisor remote of a
// partial clone, and reports whether it may now be read. After one failed
// fetch (no network, the remote gone) the repository asks no more: every
// later miss would wait for the same failure.
func (r *Repo) fetchMissing(h Hash) bool {
	if r.GitDir == "" || r.config == nil || !promisor(r.config) || r.lazyFetchFailed.Load() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), lazyFetchTimeout)
	defer cancel()
	if _, err := r.runGit(ctx, TransportOptions{}, nil, "cat-file", "-e", h.String()); err != nil {
		r.lazyFetchFailed.Store(true)
		return false
	}
	return true
}
