//go:build !unix

package index

import (
	"errors"
	"os"
)

// mapFile is not available here: snapshot files are read.
func mapFile(*os.File, int64) (*mappedFile, error) {
	return nil, errors.ErrUnsupported
}

func (m *mappedFile) Close() error { return nil }
