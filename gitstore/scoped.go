package gitstore

import (
	"errors"
)

// InScope marks m as read from a store of scope s and returns it: a memory
// decoded from a cache (the recall snapshot) does not know its store.
func (m *Memory) InScope(s Scope) *Memory {
	m.scope = s
	return m
}

// Each calls fn with every valid memory of the snapshot in id order, one at
// a time, so that a caller indexing a large store never holds all of it.
// Invalid documents are skipped and recorded (Repo.Skipped), as All does.
func (rd *Reader) Each(fn func(*Memory) error) error {
	return rd.snap.entries(func(id string, h Hash) error {
		m, err := rd.snap.repo.readMemory(h, id)
		var de *DocumentError
		if errors.As(err, &de) {
			rd.snap.repo.noteSkipped(de)
			return nil
		}
		if err != nil {
			return err
		}
		m.scope = rd.store.Scope
		return fn(m)
	})
}
