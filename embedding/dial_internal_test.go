//go:build unix

package embedding

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveWithoutDNS(t *testing.T) {
	for _, tc := range []struct {
		host string
		want []string
	}{
		{"127.0.0.1", []string{"127.0.0.1"}},
		{"::1", []string{"::1"}},
		{"::ffff:10.0.0.5", []string{"10.0.0.5"}},
		{"localhost", []string{"127.0.0.1", "::1"}},
		{"LocalHost.", []string{"127.0.0.1", "::1"}},
		{"models.localhost", []string{"127.0.0.1", "::1"}},
	} {
		got, err := resolve(tc.host)
		require.NoError(t, err, tc.host)
		var s []string
		for _, a := range got {
			s = append(s, a.String())
		}
		require.Equal(t, tc.want, s, tc.host)
	}
	_, err := resolve("no-such-host.invalid")
	require.ErrorContains(t, err, "without DNS")
}

func TestHostsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "hosts")
	require.NoError(t, os.WriteFile(p, []byte("# comment\n10.1.2.3 gpu-box gpu-box.lan # the GPU\nnot-an-ip gpu-box\n\n192.168.0.9\tOther GPU-BOX\n"), 0o644))
	require.Equal(t, []netip.Addr{netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("192.168.0.9")}, hostsFile(p, "gpu-box"))
	require.Empty(t, hostsFile(p, "gpu"))
	require.Empty(t, hostsFile(filepath.Join(t.TempDir(), "none"), "gpu-box"))
}
