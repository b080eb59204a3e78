// Package lockfile owns the files git-mem writes beside others' so that
// nobody sees them half done: lock files created with O_EXCL that name
// the git-mem process holding them (so that one left by a process that is
// gone is broken at once, not after it ages), the count of locks this
// process holds (so that it exits only once none is), and files replaced
// atomically by a rename (WriteAtomic). git's ref locks (internal/gitrefs),
// session notes (handoff), the caches and the linked stores' copies all
// take their locks here.
package lockfile
