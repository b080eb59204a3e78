package handoff

import (
	"encoding/json"
	"strconv"
)

// Every prompt hook reads its session's marker, and the first one of a
// session writes it. encoding/json would reflect over the Marker type's
// fields first (in a hook's short-lived process, every time), which costs
// more than the file's whole content; these methods read and write the
// fields by name. The JSON is the one the field tags of Marker describe.

// MarshalJSON writes the marker as a JSON object.
func (m Marker) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	var err error
	field := func(key string, v any) {
		if err != nil {
			return
		}
		var raw []byte
		if raw, err = json.Marshal(v); err == nil {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(strconv.AppendQuote(b, key), ':')
			b = append(b, raw...)
		}
	}
	text := func(key, v string) {
		if v != "" {
			field(key, v)
		}
	}
	count := func(key string, v int) {
		if v != 0 {
			field(key, v)
		}
	}
	field("session", m.Session)
	text("agent", m.Agent)
	text("head", m.Head)
	text("branch", m.Branch)
	if len(m.Dirty) > 0 {
		field("dirty", m.Dirty)
	}
	text("digest", m.Digest)
	text("memory_tip", m.MemoryTip)
	field("started", m.Started)
	if !m.Injected.IsZero() {
		field("injected", m.Injected)
	}
	count("prompts", m.Prompts)
	count("reminded", m.Reminded)
	text("note", m.Note)
	text("note_state", m.NoteState)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a marker written by MarshalJSON (or by encoding/json
// from the field tags); unknown fields are ignored.
func (m *Marker) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	var err error
	field := func(key string, v any) {
		if raw, ok := fields[key]; ok && err == nil {
			err = json.Unmarshal(raw, v)
		}
	}
	field("session", &m.Session)
	field("agent", &m.Agent)
	field("head", &m.Head)
	field("branch", &m.Branch)
	field("dirty", &m.Dirty)
	field("digest", &m.Digest)
	field("memory_tip", &m.MemoryTip)
	field("started", &m.Started)
	field("injected", &m.Injected)
	field("prompts", &m.Prompts)
	field("reminded", &m.Reminded)
	field("note", &m.Note)
	field("note_state", &m.NoteState)
	return err
}
