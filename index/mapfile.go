package index

import "io"

// mappedFile is a file mapped into memory (see mapFile). Its bytes are
// valid until Close: only reads that are done with them before the
// snapshot closes (postings decoded as they are read) use bytesAt; every
// other read copies.
type mappedFile struct {
	data []byte
}

// ReadAt copies from the mapping.
func (m *mappedFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// bytesAt is the mapping's n bytes at off, without a copy.
func (m *mappedFile) bytesAt(off int64, n int) []byte {
	return m.data[off : off+int64(n)]
}
