package handoff

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// markerFields has Marker's fields and tags without its methods: what
// encoding/json makes of a marker by reflection.
type markerFields Marker

// TestMarkerJSONMatchesReflection: a marker is written byte for byte as
// encoding/json writes its fields, and what either wrote reads back the
// same.
func TestMarkerJSONMatchesReflection(t *testing.T) {
	started := time.Date(2026, 12, 2, 9, 30, 0, 123456789, time.UTC)
	for _, m := range []Marker{
		{Session: "s1", Started: started},
		{
			Session: "sess-<&>\"\\ü\u2028", Agent: "claude-code", Head: "6ab5c0e1d0f2c4b8a9e7d6c5b4a3f2e1d0c9b8a7", Branch: "feature/refund-ledger",
			Dirty: []string{"web/refund.go", "docs/ünïcode \t tab.md"}, Digest: "d1g3st", MemoryTip: "0123456789abcdef0123456789abcdef01234567",
			Started: started, Injected: started.Add(time.Minute), Prompts: 7, Reminded: 5, Note: "0d0b2d3e9e106edb", NoteState: "head:dirty",
		},
		{Session: "s2", Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)), Dirty: []string{}, Prompts: -1},
	} {
		want, err := json.Marshal(markerFields(m))
		require.NoError(t, err)
		got, err := json.Marshal(m)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))

		for _, data := range [][]byte{want, got} {
			var back Marker
			require.NoError(t, json.Unmarshal(data, &back))
			var plain markerFields
			require.NoError(t, json.Unmarshal(data, &plain))
			require.Equal(t, Marker(plain), back)
			require.True(t, back.Started.Equal(m.Started))
			require.Equal(t, len(m.Dirty) == 0, len(back.Dirty) == 0)
		}
	}
}

// TestMarkerJSONRejectsWhatReflectionRejects: a marker file that is no
// object, or has a field of the wrong type, is an error, as it was.
func TestMarkerJSONRejectsWhatReflectionRejects(t *testing.T) {
	for _, data := range []string{
		``, `[]`, `"s1"`, `{"session":1}`, `{"session":"s1","started":"yesterday"}`,
		`{"session":"s1","dirty":"a.go"}`, `{"session":"s1","prompts":"7"}`, `{"session":"s1"`,
	} {
		var plain markerFields
		require.Error(t, json.Unmarshal([]byte(data), &plain), "%s", data)
		var m Marker
		require.Error(t, json.Unmarshal([]byte(data), &m), "%s", data)
	}
}
