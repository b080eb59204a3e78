//go:build !linux

package gitworktree

// statFile is not implemented here: the worktree proof gives up, and git
// status decides.
func statFile(string, bool) (fileStat, error) { return fileStat{}, ErrUnproven }
