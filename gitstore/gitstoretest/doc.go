package gitstoretest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Patched is the JSON document doc with the fields of set changed (a nil
// value deletes the field), encoded on one line with a final newline: how a
// test makes the invalid or hostile documents a hand edit, an older version
// or a teammate's clone can leave in a store.
func Patched(t testing.TB, doc map[string]any, set map[string]any) []byte {
	t.Helper()
	out := make(map[string]any, len(doc)+len(set))
	for k, v := range doc {
		out[k] = v
	}
	for k, v := range set {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return append(data, '\n')
}
