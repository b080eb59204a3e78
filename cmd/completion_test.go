package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompletionQuotesValues: a value completion offers can come from a
// pulled document (a writer's name), so bash completion offers it quoted:
// completing never runs a command substitution in it, and the completed
// line, when run, holds the name as text. Completion runs in a real bash
// through git's own completion, over the installed git-mem.
func TestCompletionQuotesValues(t *testing.T) {
	gitCompletion := gitBashCompletion(t)
	sb := newSandbox(t)
	_, env := sb.userShell()
	hostile := []string{"$(touch PWNED-1)", "`touch PWNED-2`", "x;touch PWNED-3", "a b'c\"d", "$HOME"}
	for _, name := range hostile {
		_, errOut, code := runUser(t, env, sb.repo, "git", "mem", "add", "--agent", name, "--", "Memory written by "+strings.ReplaceAll(name, "PWNED", "p"))
		require.Equal(t, 0, code, errOut)
	}
	script, errOut, code := runUser(t, env, sb.repo, "git", "mem", "completion", "bash")
	require.Equal(t, 0, code, errOut)
	scriptFile := filepath.Join(sb.home, "git-mem-completion.bash")
	require.NoError(t, os.WriteFile(scriptFile, []byte(script), 0o644))

	// complete the line as bash would, then run what each completion would
	// put on the command line and print the word it makes, one per line
	driver := `. "$1"; . "$2"; shift 2
COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<<"$COMP_LINE"
case "$COMP_LINE" in *" ") COMP_WORDS+=("") ;; esac
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
__git_wrap__git_main
for r in "${COMPREPLY[@]}"; do
	eval "set -- $r"
	printf '%s\n' "$1"
done`
	for _, line := range []string{"git mem add --agent ", "git mem list --agent ", "git mem add --agent $"} {
		out, errOut, code := runUser(t, env, sb.repo, "bash", "-c", driver, "bash", gitCompletion, scriptFile, line)
		require.Equal(t, 0, code, errOut)
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if strings.HasSuffix(line, "$") {
			require.ElementsMatch(t, []string{"$(touch PWNED-1)", "$HOME"}, got, "completing %q", line)
		} else if strings.Contains(line, "add") {
			for _, name := range hostile {
				require.Contains(t, got, name, "completing %q offers the writer's name as text", line)
			}
		}
		entries, err := os.ReadDir(sb.repo)
		require.NoError(t, err)
		for _, e := range entries {
			require.False(t, strings.HasPrefix(e.Name(), "PWNED"), "completing %q ran a command from a writer's name", line)
		}
		home, err := os.ReadDir(sb.home)
		require.NoError(t, err)
		for _, e := range home {
			require.False(t, strings.HasPrefix(e.Name(), "PWNED"), "completing %q ran a command from a writer's name", line)
		}
	}
}
