package cmd

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// terminalSafe is the one function every human (not --json) output of git-mem
// passes stored or remote text through before it reaches a terminal: memory
// texts, paths, tags, agent and author names, commit subjects, reasons.
// C0 and C1 control characters, DEL, Unicode bidirectional controls and
// invalid UTF-8 bytes are written as visible escapes (\x1b, \u009b, \u202e),
// so that a memory can never move the cursor, clear the screen, set the
// window title (OSC), write a hyperlink or reorder what is shown. With
// multiline, newline and tab are kept (the body of a memory); without, they
// are escaped too (one-line fields).
func terminalSafe(s string, multiline bool) string {
	if !needsEscape(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case escapeRune(r, multiline) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case escapeRune(r, multiline):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether terminalSafe would change s.
func needsEscape(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || escapeRune(r, multiline) {
			return true
		}
		i += size
	}
	return false
}

// escapeRune reports the characters terminalSafe escapes.
func escapeRune(r rune, multiline bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !multiline
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true // bidirectional controls: they reorder what is displayed
	}
	return false
}
