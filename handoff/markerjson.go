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

// markerField is one field of a marker's JSON: its key, a pointer to its
// value, and whether it is left out when written (the tag's omitempty or
// omitzero).
type markerField struct {
	key  string
	v    any
	omit bool
}

// fields are the marker's JSON fields, in the order of its type.
func (m *Marker) fields() []markerField {
	return []markerField{
		{"session", &m.Session, false},
		{"agent", &m.Agent, m.Agent == ""},
		{"head", &m.Head, m.Head == ""},
		{"branch", &m.Branch, m.Branch == ""},
		{"dirty", &m.Dirty, len(m.Dirty) == 0},
		{"digest", &m.Digest, m.Digest == ""},
		{"memory_tip", &m.MemoryTip, m.MemoryTip == ""},
		{"started", &m.Started, false},
		{"injected", &m.Injected, m.Injected.IsZero()},
		{"prompts", &m.Prompts, m.Prompts == 0},
		{"reminded", &m.Reminded, m.Reminded == 0},
		{"note", &m.Note, m.Note == ""},
		{"note_state", &m.NoteState, m.NoteState == ""},
	}
}

// MarshalJSON writes the marker as a JSON object.
func (m Marker) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, f := range m.fields() {
		if f.omit {
			continue
		}
		raw, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(strconv.AppendQuote(b, f.key), ':')
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a marker written by MarshalJSON (or by encoding/json
// from the field tags); unknown fields are ignored.
func (m *Marker) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, f := range m.fields() {
		if v, ok := raw[f.key]; ok {
			if err := json.Unmarshal(v, f.v); err != nil {
				return err
			}
		}
	}
	return nil
}
