//go:build unix

package index

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps a snapshot file read-only. A hook reads a few postings lists
// of a file tens of megabytes large and exits: mapped pages come from the
// page cache several at a fault, where each read into fresh memory costs a
// fault per page and a copy. A file that cannot be mapped is read instead.
func mapFile(f *os.File, size int64) (*mappedFile, error) {
	if size <= 0 || size != int64(int(size)) {
		return nil, fmt.Errorf("cannot map %d bytes", size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &mappedFile{data: data}, nil
}

func (m *mappedFile) Close() error {
	if m.data == nil {
		return nil
	}
	err := syscall.Munmap(m.data)
	m.data = nil
	return err
}
