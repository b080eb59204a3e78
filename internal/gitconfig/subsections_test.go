package gitconfig

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSubsections(t *testing.T) {
	for _, tc := range []struct {
		name, file   string
		section, key string
		want         []string
	}{
		{"links in order, each once", "[mem \"link.acme\"]\n\turl = a\n[mem \"link.b-2\"]\n\turl = b\n[mem \"link.acme\"]\n\turl = c\n", "mem", "url", []string{"link.acme", "link.b-2"}},
		{"other keys and sections are not read", "[mem \"link.acme\"]\n\twrite = true\n[remote \"origin\"]\n\turl = x\n[mem]\n\turl = y\n", "mem", "url", nil},
		{"section and key without case", "[MEM \"link.Acme\"]\n\tURL = a\n", "mem", "Url", []string{"link.Acme"}},
		{"another section", "[remote \"origin\"]\n\turl = x\n[remote \"up\"]\n\turl = y\n", "remote", "url", []string{"origin", "up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, ok := Parse([]byte(tc.file))
			require.True(t, ok)
			c := &Config{}
			c.Add(entries)
			require.Equal(t, tc.want, c.Subsections(tc.section, tc.key))
		})
	}
}
