package cmd_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// needTool finds a program the test drives, and fails under CI (which
// installs it: .ci/run) rather than skip there.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed; .ci/run installs it", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// userShell is a user's view of the sandbox: git-mem on PATH in HOME/bin,
// man pages read without a pager, no MANPATH of the machine's.
func (sb *sandbox) userShell() (bin string, env []string) {
	sb.t.Helper()
	bin = filepath.Join(sb.home, "bin")
	require.NoError(sb.t, os.MkdirAll(bin, 0o755))
	if _, err := os.Lstat(filepath.Join(bin, "git-mem")); err != nil {
		require.NoError(sb.t, os.Symlink(binary, filepath.Join(bin, "git-mem")))
	}
	for _, kv := range sb.env() {
		if k, _, _ := strings.Cut(kv, "="); k != "MANPATH" && k != "PATH" {
			env = append(env, kv)
		}
	}
	// PATH holds only the tools the tests run: another git-mem on the
	// machine's PATH (and man pages beside it) must not answer for this one
	path := []string{bin}
	for _, tool := range []string{"git", "man", "bash", "zsh", "sh"} {
		if p, err := exec.LookPath(tool); err == nil && !slices.Contains(path, filepath.Dir(p)) {
			path = append(path, filepath.Dir(p))
		}
	}
	env = append(env, "PATH="+strings.Join(path, string(os.PathListSeparator)), "MANPAGER=cat", "PAGER=cat", "GIT_PAGER=cat", "MANWIDTH=100", "LANG=C", "LC_ALL=C")
	return bin, env
}

// runUser runs a command line in the sandbox's repository as a user would.
func runUser(t *testing.T, env []string, dir string, name string, args ...string) (string, string, int) {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errb.String(), 0
}

// TestGitMemHelpThroughGit: git turns "git mem --help" into "man git-mem";
// after git mem install --man the page is found through PATH alone (beside
// the git-mem git runs), with no MANPATH set, and git mem help works without
// man at all.
func TestGitMemHelpThroughGit(t *testing.T) {
	needTool(t, "man")
	sb := newSandbox(t)
	_, env := sb.userShell()

	_, errOut, code := runUser(t, env, sb.repo, "git", "mem", "--help")
	require.NotEqual(t, 0, code, "no man page yet, so git mem --help cannot work: %s", errOut)

	out, errOut, code := runUser(t, env, sb.repo, "git", "mem", "install", "--man")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "man pages in "+filepath.Join(sb.home, "share", "man", "man1"))
	require.NotContains(t, errOut, "man does not search", "man finds the pages beside the binary through PATH")

	for _, args := range [][]string{{"mem", "--help"}, {"help", "mem"}} {
		out, errOut, code = runUser(t, env, sb.repo, "git", args...)
		require.Equal(t, 0, code, "git %s: %s", strings.Join(args, " "), errOut)
		require.Contains(t, out, "GIT-MEM(1)")
		require.Contains(t, out, "git mem [flags]")
		require.Regexp(t, `(?m)^\s+Memory:$`, out)
		require.Regexp(t, `(?m)^\s+recall\s+Find the memories relevant`, out)
	}
	out, errOut, code = runUser(t, env, sb.repo, "man", "git-mem-recall")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "git mem recall")

	out, errOut, code = runUser(t, env, sb.repo, "git", "mem", "help", "recall")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Usage:\n  git mem recall")

	out, errOut, code = runUser(t, env, sb.repo, "git", "mem", "doctor", "--offline")
	require.Contains(t, out, "man pages: git mem --help shows "+filepath.Join(sb.home, "share", "man", "man1", "git-mem.1"), errOut)
	require.Regexp(t, `(?m)^ok\s+version: git-mem `, out)
	_ = code
}

// TestVersionThroughGit: git mem --version and git mem version print the
// same line, which is what the build recorded (go version -m is the oracle):
// a build from a checkout names its commit. Go stamps the commit only in a
// checkout whose .git is a directory (not in a linked worktree); CI builds
// in a clone and requires it.
func TestVersionThroughGit(t *testing.T) {
	sb := newSandbox(t)
	bin, env := sb.userShell()
	stamped := filepath.Join(bin, "git-mem")
	require.NoError(t, os.Remove(stamped))
	build := exec.Command("go", "build", "-buildvcs=true", "-o", stamped, "./git-mem")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	info, err := exec.Command("go", "version", "-m", stamped).Output()
	require.NoError(t, err)
	setting := func(key string) string {
		m := regexp.MustCompile(`(?m)^\s+build\s+` + regexp.QuoteMeta(key) + `=(\S+)$`).FindSubmatch(info)
		if m == nil {
			return ""
		}
		return string(m[1])
	}
	// a clean clone is stamped with a pseudo-version, a worktree or a
	// modified tree with (devel): either way the binary says what go recorded
	mod := regexp.MustCompile(`(?m)^\s+mod\s+\S+\s+(\S+)`).FindSubmatch(info)
	require.NotNil(t, mod, "go version -m names no main module:\n%s", info)
	want := `^git-mem version ` + regexp.QuoteMeta(string(mod[1])) + ` `
	if rev := setting("vcs.revision"); rev != "" {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		require.NoError(t, err)
		require.Equal(t, strings.TrimSpace(string(head)), rev)
		want += rev[:12] + " " + regexp.QuoteMeta(setting("vcs.time"))
		if setting("vcs.modified") == "true" {
			want += " modified"
		}
		want += " "
	} else {
		require.NotEqual(t, "true", os.Getenv("CI"), "CI builds in a clone, where go stamps the commit:\n%s", info)
	}
	want += `\(go1\.\S+\)\n$`

	flag, errOut, code := runUser(t, env, sb.repo, "git", "mem", "--version")
	require.Equal(t, 0, code, errOut)
	verb, errOut, code := runUser(t, env, sb.repo, "git", "mem", "version")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, flag, verb)
	require.Regexp(t, want, verb)

	doctor, _, _ := runUser(t, env, sb.repo, "git", "mem", "doctor", "--offline")
	require.Contains(t, doctor, "version: git-mem "+strings.TrimSuffix(strings.TrimPrefix(verb, "git-mem version "), "\n"))
}

// gitBashCompletion locates the bash completion script git ships.
func gitBashCompletion(t *testing.T) string {
	t.Helper()
	needTool(t, "bash")
	candidates := []string{
		"/usr/share/bash-completion/completions/git",
		"/etc/bash_completion.d/git",
		"/usr/share/git-core/contrib/completion/git-completion.bash",
		"/usr/local/share/git-core/contrib/completion/git-completion.bash",
		"/opt/homebrew/etc/bash_completion.d/git-completion.bash",
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("git's bash completion script is not installed (looked in %s); .ci/run installs git", strings.Join(candidates, ", "))
	}
	t.Skip("git's bash completion script is not installed")
	return ""
}

// TestCompletionThroughGitBashCompletion: with git's own bash completion and
// the script of git mem completion bash, "git mem <TAB>" completes commands,
// flags, memory ids, types, agents and remotes.
func TestCompletionThroughGitBashCompletion(t *testing.T) {
	gitCompletion := gitBashCompletion(t)
	sb := newSandbox(t)
	_, env := sb.userShell()
	sb.git("remote", "add", "origin", filepath.Join(sb.home, "shared.git"))
	idOf := func(args ...string) string {
		out, errOut, code := runUser(t, env, sb.repo, "git", append([]string{"mem", "add"}, args...)...)
		require.Equal(t, 0, code, errOut)
		return strings.TrimSpace(out)
	}
	fact := idOf("--type", "fact", "--", "The API listens on port 8080")
	gotcha := idOf("--type", "gotcha", "--agent", "claude-code", "--", "requireAdmin throws before loadSession")

	script, errOut, code := runUser(t, env, sb.repo, "git", "mem", "completion", "bash")
	require.Equal(t, 0, code, errOut)
	scriptFile := filepath.Join(sb.home, "git-mem-completion.bash")
	require.NoError(t, os.WriteFile(scriptFile, []byte(script), 0o644))

	// complete sets the words as bash would for the line and calls git's
	// completion entry point, then prints COMPREPLY one per line
	driver := `. "$1"; . "$2"; shift 2
complete_line() {
	COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<<"$COMP_LINE"
	case "$COMP_LINE" in *" ") COMP_WORDS+=("") ;; esac
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	__git_wrap__git_main
	printf '%s\n' "${COMPREPLY[@]}"
}
complete_line "$1"`
	cases := []struct {
		line string
		want []string
	}{
		{"git mem re", []string{"recall ", "reindex ", "review ", "revise "}},
		{"git mem pu", []string{"pull ", "push "}},
		{"git mem show ", []string{fact[:6] + " ", gotcha[:6] + " "}},
		{"git mem forget " + fact[:5], []string{fact[:6] + " "}},
		{"git mem list --ty", []string{"--type "}},
		{"git mem list --type go", []string{"gotcha "}},
		{"git mem add --source ve", []string{"verified "}},
		{"git mem install cu", []string{"cursor "}},
		{"git mem add --agent cl", []string{"claude ", "claude-code ", "cli "}},
		{"git mem push ", []string{"origin "}},
		{"git mem completion ", []string{"bash ", "zsh "}},
		{"git mem ev", nil},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			out, errOut, code := runUser(t, env, sb.repo, "bash", "-c", driver, "bash", gitCompletion, scriptFile, tc.line)
			require.Equal(t, 0, code, errOut)
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if l != "" {
					got = append(got, l)
				}
			}
			require.ElementsMatch(t, tc.want, got, "completing %q", tc.line)
		})
	}
	out, _, _ := runUser(t, env, sb.repo, "bash", "-c", driver, "bash", gitCompletion, scriptFile, "git mem ")
	for _, want := range []string{"add ", "recall ", "version ", "completion ", "help "} {
		require.Contains(t, strings.Split(out, "\n"), want)
	}
	require.NotContains(t, strings.Split(out, "\n"), "eval ", "eval is for developers of git-mem")
}

// TestCompletionZshFunction: the _git-mem function of git mem completion zsh,
// which zsh's own git completion calls for "git mem" with the words from
// "mem" on, run by a real zsh over a real git-mem. zsh's completion
// builtins only work inside a completion widget, so _describe, compset and
// the file completers are stand-ins that print what they were given.
func TestCompletionZshFunction(t *testing.T) {
	needTool(t, "zsh")
	sb := newSandbox(t)
	_, env := sb.userShell()
	out, errOut, code := runUser(t, env, sb.repo, "git", "mem", "add", "--type", "decision", "--", "Bookings are stored in UTC: convert in the UI")
	require.Equal(t, 0, code, errOut)
	id := strings.TrimSpace(out)
	script, errOut, code := runUser(t, env, sb.repo, "git", "mem", "completion", "zsh")
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.HasPrefix(script, "#compdef git-mem\n"))
	scriptFile := filepath.Join(sb.home, "_git-mem")
	require.NoError(t, os.WriteFile(scriptFile, []byte(script), 0o644))
	driver := `source "$1"
_describe() { local a; for a in "$@"; do [[ $a == comps ]] && print -rl -- "${comps[@]}"; done }
compset() { : }
_files() { print FILES }
_path_files() { print DIRS }
words=("${(@s: :)2}")
CURRENT=${#words}
_git-mem`
	cases := []struct {
		line string
		want []string
	}{
		{"mem re", []string{"recall:Find the memories relevant to a question, most relevant first", "reindex:Rebuild the search index from the memory refs", "review:List, accept or reject the memories proposed to a linked store", "revise:Replace the text or the retrieval keys of a memory (history keeps the old ones)"}},
		{"mem show ", []string{id[:6] + ":decision: Bookings are stored in UTC: convert in the UI"}},
		{"mem list --type ", []string{"fact", "decision", "gotcha", "convention", "command", "preference", "handoff", "session"}},
		{"mem install ", []string{"claude", "codex", "cursor", "gemini", "qwen", "copilot", "opencode"}},
		{"mem -C ", []string{"DIRS"}},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			out, errOut, code := runUser(t, env, sb.repo, "zsh", "-f", "-c", driver, "zsh", scriptFile, tc.line)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.want, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
		})
	}
}
