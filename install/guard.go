package install

import "strings"

// A hook command written into an agent's config runs git-mem's hook only
// when the binary is there: a project install committed to the repository
// reaches teammates who may not have git-mem, and their agent must not
// report "command not found" on every event. The command is
//
//	sh -c 'command -v BIN >/dev/null 2>&1 || exit 0; exec BIN EVENT --agent AGENT'
//
// which exits 0, silently, when BIN is not found, and otherwise becomes the
// hook process itself (same stdin, stdout and exit status). Agents run a
// hook's command line through a shell (docs/agents.md); the explicit sh -c
// keeps the guard POSIX whatever that shell is, and also holds for an agent
// that splits the line into words as a shell would. On Windows nothing is
// promised.

const guardPrefix = "sh -c "

// guardCommand wraps a command line whose program is bin.
func guardCommand(bin, line string) string {
	script := "command -v " + shellQuote(bin) + " >/dev/null 2>&1 || exit 0; exec " + line
	return guardPrefix + shellQuote(script)
}

// unguard returns the command line a guarded command runs; ok is false when
// cmd is not one.
func unguard(cmd string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(cmd), guardPrefix)
	if !ok {
		return "", false
	}
	script, ok := shellUnquote(strings.TrimSpace(rest))
	if !ok {
		return "", false
	}
	_, line, ok := strings.Cut(script, "; exec ")
	if !ok || !strings.HasPrefix(script, "command -v ") {
		return "", false
	}
	return line, true
}

// shellUnquote reads one shell word made of single-quoted parts and
// backslash-escaped characters, as shellQuote writes it.
func shellUnquote(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			b.WriteByte(s[i+1])
			i += 2
		case ' ', '\t':
			return "", false // more than one word
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), true
}

// HookLine is the command line a hook command runs: cmd itself, or the line
// inside git-mem's guard.
func HookLine(cmd string) string {
	if line, ok := unguard(cmd); ok {
		return line
	}
	return cmd
}
