package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// largePackIndex is the size of a store's pack indexes past which Diff asks
// git instead of comparing trees through go-git. To read one packed object
// go-git loads its pack's whole index and, for an object stored as a
// delta, builds a map of every object's offset: at 100,000 memories that
// is most of what a session start does after an add. git maps the index
// and searches it, so a diff costs it a process start whatever the size.
var largePackIndex int64 = 1 << 20

// packIndexBytes is the size of the repository's pack indexes.
func (r *Repo) packIndexBytes() int64 {
	if r.CommonDir == "" {
		return 0
	}
	entries, err := os.ReadDir(filepath.Join(r.CommonDir, "objects", "pack"))
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".idx") {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// gitDiff is Diff answered by git diff-tree; ok is false when git cannot
// answer, and the caller compares the trees itself.
func (s *Store) gitDiff(from, to Hash) (changed, removed []string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	out, err := s.Repo.runGit(ctx, TransportOptions{}, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status",
		from.String(), to.String(), "--", memoriesDir+"/")
	if err != nil {
		return nil, nil, false
	}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, path := fields[i], fields[i+1]
		rest, under := strings.CutPrefix(path, memoriesDir+"/")
		fan, name, inFan := strings.Cut(rest, "/")
		if status == "" || !under || !inFan {
			continue
		}
		id, valid := docID(fan, name)
		if !valid {
			continue
		}
		if status[0] == 'D' {
			removed = append(removed, id)
		} else {
			changed = append(changed, id)
		}
	}
	return changed, removed, true
}
