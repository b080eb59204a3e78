//go:build unix

package gitstore

import (
	"os"
	"strconv"
	"syscall"
)

// ownedByUser reports whether path belongs to the user git-mem runs as, as
// git decides it for safe.directory: root may use what the user it was
// started for by sudo (SUDO_UID) owns. ok is false when the owner cannot be
// told, which is then not held against the path.
func ownedByUser(path string) (owned, ok bool) {
	st, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	sys, isUnix := st.Sys().(*syscall.Stat_t)
	if !isUnix {
		return false, false
	}
	euid := os.Geteuid()
	if int(sys.Uid) == euid {
		return true, true
	}
	if euid == 0 {
		if sudo, err := strconv.Atoi(os.Getenv("SUDO_UID")); err == nil && int(sys.Uid) == sudo {
			return true, true
		}
	}
	return false, true
}
