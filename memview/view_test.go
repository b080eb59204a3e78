package memview

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

func TestNew(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &gitstore.Memory{ID: "0123456789abcdef", Type: gitstore.TypeFact, Text: "The build needs Go 1.26", Source: gitstore.SourceUser, Trust: 0.9, Created: now, Updated: now, ValidFrom: now}
	tests := []struct {
		name      string
		short     string
		wantShort string
	}{
		{"a display id given", "01234567", "01234567"},
		{"none: the id's first shown digits", "", gitstore.Clip(m.ID, gitstore.MinShownPrefix)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := New(m, tt.short, now)
			require.Equal(t, m.ID, v.ID)
			require.Equal(t, tt.wantShort, v.ShortID)
			require.Equal(t, m.EffectiveTrust(now), v.Trust)
			require.NotNil(t, v.Tags, "tags show as [] when there are none")
			require.NotNil(t, v.Paths, "paths show as [] when there are none")
			data, err := json.Marshal(v)
			require.NoError(t, err)
			require.Contains(t, string(data), `"tags":[]`)
			require.Contains(t, string(data), `"short_id":"`+tt.wantShort+`"`)
		})
	}
}
