package gitobj

import (
	"encoding/hex"
)

// Hash names a git object (a commit, tree or blob) by its SHA-1. It is
// git-mem's own type so that no caller needs go-git to hold, compare or
// print one; inside this package it converts to and from go-git's hash for
// free.
type Hash [20]byte

// zeroHash is no object.
var zeroHash Hash

// String returns the hash in full lowercase hex, as git prints it.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first seven hex digits, as git abbreviates a commit.
func (h Hash) Short() string { return h.String()[:7] }

// IsZero reports whether h is the zero hash (no object).
func (h Hash) IsZero() bool { return h == zeroHash }

// ParseHash parses exactly 40 lowercase hex digits.
func ParseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 2*len(h) || !isHex(s) {
		return zeroHash, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return zeroHash, false
	}
	return h, true
}

// isHex reports whether s is lowercase hex digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
