package gitstore

import (
	"encoding/hex"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash names a git object (a commit, tree or blob) by its SHA-1. It is
// gitstore's own type so that no caller needs go-git to hold, compare or
// print one; inside gitstore it converts to and from go-git's hash for free.
type Hash [20]byte

// zeroHash is no object: the tip of an empty store, a ref that does not
// exist, a deleted entry in a change set.
var zeroHash Hash

// String returns the hash in full lowercase hex, as git prints it.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first seven hex digits, as git abbreviates a commit.
func (h Hash) Short() string { return h.String()[:7] }

// IsZero reports whether h is the zero hash (no object).
func (h Hash) IsZero() bool { return h == zeroHash }

// HashOf parses a full hex object id; "" is the zero hash (an empty store).
func HashOf(s string) (Hash, bool) {
	if s == "" {
		return zeroHash, true
	}
	return parseHash(s)
}

// parseHash parses exactly 40 lowercase hex digits.
func parseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 2*len(h) || !isHex(s) {
		return zeroHash, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return zeroHash, false
	}
	return h, true
}

// The conversions below are go-git's side of the boundary: go-git names an
// object with its own [20]byte type.

// hashesOf converts go-git's hashes (a commit's parents) to gitstore's.
func hashesOf(hs []plumbing.Hash) []Hash {
	out := make([]Hash, len(hs))
	for i, h := range hs {
		out[i] = Hash(h)
	}
	return out
}

// gitHashes converts gitstore's hashes to go-git's.
func gitHashes(hs []Hash) []plumbing.Hash {
	out := make([]plumbing.Hash, len(hs))
	for i, h := range hs {
		out[i] = plumbing.Hash(h)
	}
	return out
}
