//go:build unix

package snapshot

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The mapping outlives f.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// mapRange maps n bytes of f from off read-only, and returns them with the
// function that unmaps them.
func mapRange(f *os.File, off int64, n int) ([]byte, func(), error) {
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	m, err := syscall.Mmap(int(f.Fd()), start, int(off-start)+n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return m[off-start:], func() { syscall.Munmap(m) }, nil
}
