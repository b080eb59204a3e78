package bleveindex

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"
)

// LogName is the file, beside the index directory
// (index.log in memdir.Dir), that receives bleve's own log lines: scorch prints warnings through the standard library's logger
// ("got err removing file …zap" when another process removed a segment
// first), which would otherwise reach the user's stderr, or an agent's.
const LogName = "index.log"

// logMaxBytes caps the log: past it the file becomes index.log.1 (replacing
// the previous one).
const logMaxBytes = 256 << 10

// bleveLog is where the process's standard logger writes once this package
// is linked: the log of the index opened last, or nowhere before one is.
var bleveLog = &logFile{}

func init() {
	log.SetOutput(bleveLog)
	bleve.SetLog(log.New(bleveLog, "bleve ", log.LstdFlags))
}

// logFile appends each line written to it to the file at path, opening it
// for each write (lines are rare, and no descriptor outlives an operation).
type logFile struct {
	mu   sync.Mutex
	path string
}

// use sends later lines to the log beside the index directory dir.
func (l *logFile) use(dir string) {
	l.mu.Lock()
	l.path = filepath.Join(filepath.Dir(dir), LogName)
	l.mu.Unlock()
}

// Write never fails: a line that cannot be written is dropped.
func (l *logFile) Write(p []byte) (int, error) {
	n := len(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		return n, nil
	}
	if st, err := os.Stat(l.path); err == nil && st.Size()+int64(len(p)) > logMaxBytes {
		os.Rename(l.path, l.path+".1")
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return n, nil
	}
	defer f.Close()
	if !bytes.HasSuffix(p, []byte("\n")) {
		p = append(p[:len(p):len(p)], '\n')
	}
	f.Write(p)
	return n, nil
}
