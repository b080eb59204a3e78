//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The mapping outlives f.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}
