// Package gitrefs owns git's files ref backend as git-mem reads and writes
// it: loose refs and packed-refs read as git reads them (symbolic refs
// followed), compare-and-swap updates by git's lock protocol (<ref>.lock
// created with O_EXCL, the old value checked, the new one written, fsynced
// and renamed over the ref), so that they interoperate with every git
// command; the lock files themselves are internal/lockfile's.
//
// It is held against real git by differential tests: whatever a loose ref
// file holds, the reader reads the commit git rev-parse reads, and an error
// where git finds the ref broken (FuzzLooseRefAsGit); gitstore's tests hold
// the refs of memory stores against git for-each-ref and update-ref.
package gitrefs
