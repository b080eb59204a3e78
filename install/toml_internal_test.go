package install

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTOMLTrustSections(t *testing.T) {
	const orig = "model = \"o3\"\n\n# my server\n[mcp_servers.docs]\ncommand = \"docs\"\n"
	src := "/home/u/.codex/hooks.json"
	must := func(b []byte, err error) []byte {
		t.Helper()
		require.NoError(t, err)
		return b
	}
	data := must(tomlSetMCP([]byte(orig), InstallOptions{Binary: "git-mem"}))
	data = must(tomlSetTrust(data, src+":session_start:0:0", "sha256:aa"))
	data = must(tomlSetTrust(data, src+":stop:0:0", "sha256:bb"))
	data = must(tomlSetTrust(data, src+":session_start:0:0", "sha256:cc")) // replaced in place
	s := string(data)
	require.Contains(t, s, "# my server\n[mcp_servers.docs]")
	require.NotContains(t, s, "sha256:aa")
	require.Contains(t, s, "[hooks.state.\"/home/u/.codex/hooks.json:session_start:0:0\"]\ntrusted_hash = \"sha256:cc\"")
	// another file's trust is kept
	other := must(tomlRemoveTrust(data, "/elsewhere/hooks.json"))
	require.Equal(t, s, string(other))
	back := must(tomlRemoveMCP(must(tomlRemoveTrust(data, src))))
	require.Equal(t, orig, string(back))
}
