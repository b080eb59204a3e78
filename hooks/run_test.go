package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestUUIDShapedIDsPassTheWriterRules: the ids the hooks let through
// without the secret scanner are ones the store's rules accept.
func TestUUIDShapedIDsPassTheWriterRules(t *testing.T) {
	for _, tc := range []struct {
		id   string
		uuid bool
	}{
		{"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", true},
		{"0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0", true},
		{"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f", false},
		{"0b1c2d3e04f50-6172-8394-a5b6c7d8e9f0", false},
		{"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9g0", false},
		{"ghp_" + strings.Repeat("a1B2", 8), false},
		{"", false},
	} {
		require.Equal(t, tc.uuid, uuidShaped(tc.id), tc.id)
		if tc.uuid {
			require.NoError(t, gitstore.Writer{Session: tc.id}.Check())
		}
	}
}
