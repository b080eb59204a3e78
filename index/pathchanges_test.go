package index

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// TestPathChangesRefusesWhatIsNoAnchor: no git runs for an anchor that is
// no commit id, and no paths ask nothing.
func TestPathChangesRefusesWhatIsNoAnchor(t *testing.T) {
	r := gitstore.NewMemoryRepo()
	tests := []struct {
		name    string
		anchor  string
		paths   []string
		wantErr error
	}{
		{"no paths", "not an id", nil, nil},
		{"an empty anchor", "", []string{"go.mod"}, memerr.ErrInvalid},
		{"not hex", "main", []string{"go.mod"}, memerr.ErrInvalid},
		{"an option", "--all", []string{"go.mod"}, memerr.ErrInvalid},
		{"too short", strings.Repeat("a", 39), []string{"go.mod"}, memerr.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PathChanges(context.Background(), r, tt.anchor, tt.paths)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Empty(t, got)
		})
	}
}
