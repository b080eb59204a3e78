package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSettingsInIncludedFiles: a mem.* setting kept in a file git includes
// (include.path, includeIf) is the setting, as for git config --get: the
// writing agent of git mem add comes from it.
func TestSettingsInIncludedFiles(t *testing.T) {
	sb := newSandbox(t)
	require.NoError(t, os.WriteFile(filepath.Join(sb.home, "work.inc"), []byte("[mem]\n\tagent = work-agent\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sb.home, ".gitconfig"), []byte("[includeIf \"gitdir:"+sb.repo+"/\"]\n\tpath = work.inc\n"), 0o644))
	require.Equal(t, "work-agent\n", sb.git("config", "--get", "mem.agent"))
	var m struct {
		Agent string `json:"agent"`
	}
	require.NoError(t, json.Unmarshal([]byte(sb.memOK("add", "--json", "--", "Bookings are stored in UTC")), &m))
	require.Equal(t, "work-agent", m.Agent)
}
