//go:build !unix

package gitstore

// ownedByUser cannot tell the owner here; git's own check differs by
// system, and the repository is taken as the user's.
func ownedByUser(string) (owned, ok bool) { return false, false }
