package cmd

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestTerminalSafe(t *testing.T) {
	cases := []struct {
		name, in, multi, single string
	}{
		{"plain", "Bookings are stored in UTC", "Bookings are stored in UTC", "Bookings are stored in UTC"},
		{"unicode", "café → naïve 日本", "café → naïve 日本", "café → naïve 日本"},
		{"newline and tab", "a\n\tb", "a\n\tb", `a\x0a\x09b`},
		{"CSI", "red \x1b[31mtext\x1b[0m", `red \x1b[31mtext\x1b[0m`, `red \x1b[31mtext\x1b[0m`},
		{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\x\x1b]8;;\x1b\`, `\x1b]8;;http://evil\x1b\x\x1b]8;;\x1b\`},
		{"carriage return", "shown\rhidden", `shown\x0dhidden`, `shown\x0dhidden`},
		{"DEL and NUL", "a\x7fb\x00c", `a\x7fb\x00c`, `a\x7fb\x00c`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
		{"bidi override", "abc\u202edcba\u202c", `abc\u202edcba\u202c`, `abc\u202edcba\u202c`},
		{"isolates", "\u2066x\u2069", `\u2066x\u2069`, `\u2066x\u2069`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.multi, terminalSafe(c.in, true))
			require.Equal(t, c.single, terminalSafe(c.in, false))
		})
	}
}

// FuzzTerminalSafe: whatever goes in, what comes out is valid UTF-8 with no
// control character but newline and tab (multi-line) or none at all, no
// bidirectional control, and printable text passes unchanged.
func FuzzTerminalSafe(f *testing.F) {
	for _, s := range []string{"plain", "a\x1b[2Jb", "\x1b]0;t\x07", "x\u009by", "\u202e", "a\xff", "\r\n\t", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, multi := range []bool{true, false} {
			out := terminalSafe(s, multi)
			require.True(t, utf8.ValidString(out))
			for _, r := range out {
				if multi && (r == '\n' || r == '\t') {
					continue
				}
				require.False(t, escapeRune(r, multi), "%q left %U in %q", s, r, out)
			}
			if !needsEscape(s, multi) {
				require.Equal(t, s, out)
			}
			if !multi {
				require.NotContains(t, out, "\n")
			}
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return escapeRune(r, true) }) {
			require.Equal(t, s, terminalSafe(s, true))
		}
	})
}
