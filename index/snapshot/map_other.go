//go:build !unix

package snapshot

import (
	"errors"
	"os"
)

// mapFile is unavailable here: snapshots are read with ReadAt.
func mapFile(*os.File, int64) ([]byte, error) {
	return nil, errors.New("no memory maps on this system")
}

// mapRange is unavailable here: the range is read with ReadAt.
func mapRange(*os.File, int64, int) ([]byte, func(), error) {
	return nil, nil, errors.New("no memory maps on this system")
}
