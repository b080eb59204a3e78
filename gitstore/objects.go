package gitstore

import (
	"compress/zlib"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-mem/git-mem/internal/gitobj"
)

// Hash names a git object (a commit, tree or blob) by its SHA-1. It is
// git-mem's own type (internal/gitobj) so that no caller needs go-git to
// hold, compare or print one.
type Hash = gitobj.Hash

// zeroHash is no object: the tip of an empty store, a ref that does not
// exist, a deleted entry in a change set.
var zeroHash Hash

// HashOf parses a full hex object id; "" is the zero hash (an empty store).
func HashOf(s string) (Hash, bool) {
	if s == "" {
		return zeroHash, true
	}
	return parseHash(s)
}

// parseHash parses exactly 40 lowercase hex digits.
func parseHash(s string) (Hash, bool) { return gitobj.ParseHash(s) }

// The commits and trees gitstore reads and writes, as internal/gitobj
// encodes and decodes them.
type (
	treeEntry = gitobj.TreeEntry
	gitTree   = gitobj.Tree
	gitCommit = gitobj.Commit
	signature = gitobj.Signature
)

// sortName is the name git orders a tree's entries by.
func sortName(e *treeEntry) string { return gitobj.SortName(e) }

// errNotFound reports h missing, as the object database does, so that
// errors.Is finds gitobj.ErrNotFound.
func errNotFound(h Hash) error {
	return fmt.Errorf("object %s: %w", h, gitobj.ErrNotFound)
}

// looseCompression is the zlib level git writes loose objects at:
// core.looseCompression, else core.compression, else 1 (the fastest; -1
// is zlib's default). Compressing a memory's trees at zlib's default level
// took a fifth of an add at 100,000 memories.
func looseCompression(c *Config) int {
	if c == nil {
		return zlib.BestSpeed
	}
	for _, key := range []string{"looseCompression", "compression"} {
		if v := strings.TrimSpace(c.Get("core", "", key)); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= -1 && n <= 9 {
				return n
			}
		}
	}
	return zlib.BestSpeed
}
