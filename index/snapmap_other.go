//go:build !unix

package index

import (
	"errors"
	"os"
)

// mapFile is not available here: snapshots are read by the piece.
func mapFile(*os.File, int64) ([]byte, error) {
	return nil, errors.New("index: no mapped files on this system")
}

func unmapFile([]byte) {}
