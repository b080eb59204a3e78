package bleveindex

import (
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBleveLogLinesGoToTheLog: what bleve prints through the standard logger
// (scorch's "got err removing file") lands in index.log beside the index,
// never on stderr.
func TestBleveLogLinesGoToTheLog(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	require.NotEmpty(t, ids(r.recall("database migrations")))

	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	saved := os.Stderr
	os.Stderr = stderr
	log.Printf("got err removing file: %s, err: %v", "000000000042.zap", os.ErrNotExist)
	os.Stderr = saved

	out, err := os.ReadFile(stderr.Name())
	require.NoError(t, err)
	require.Empty(t, string(out), "nothing on stderr")
	data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "mem", LogName))
	require.NoError(t, err)
	require.Contains(t, string(data), "got err removing file: 000000000042.zap")
}
