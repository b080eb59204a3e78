//go:build !linux

package gitstore

// statFile is not implemented here: the worktree proof gives up, and git
// status decides.
func statFile(string, bool) (fileStat, error) { return fileStat{}, errWorktreeUnproven }
