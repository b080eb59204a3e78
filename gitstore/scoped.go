package gitstore

// InScope marks m as read from a store of scope s and returns it: a memory
// decoded from a cache (the recall snapshot) does not know its store.
func (m *Memory) InScope(s Scope) *Memory {
	m.scope = s
	return m
}
