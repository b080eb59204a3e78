package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func testEnv(out, errOut *bytes.Buffer) *Env {
	return &Env{
		Streams: Streams{In: strings.NewReader(""), Out: out, Err: errOut},
		Getenv:  func(string) string { return "" },
		Now:     time.Now,
	}
}

// visibleCommands are the commands git mem help lists.
func visibleCommands(t *testing.T) []string {
	var out, errOut bytes.Buffer
	root := newRootCmd(testEnv(&out, &errOut))
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	require.Greater(t, len(names), 20)
	return names
}

// TestManPagesEveryCommand: git mem install --man writes git-mem(1) and a
// page for every command git mem help lists, none for hidden ones, each
// saying "git mem <command>" and naming this build's version.
func TestManPagesEveryCommand(t *testing.T) {
	dir := t.TempDir()
	pages, err := writeManPages(dir)
	require.NoError(t, err)
	want := []string{filepath.Join(dir, "man1", manPageName)}
	for _, name := range visibleCommands(t) {
		want = append(want, filepath.Join(dir, "man1", "git-mem-"+name+".1"))
	}
	require.ElementsMatch(t, want, pages)
	require.NoFileExists(t, filepath.Join(dir, "man1", "git-mem-eval.1"), "eval is for developers of git-mem")
	for _, p := range pages {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		page := string(data)
		require.True(t, strings.HasPrefix(page, ".nh\n.TH "), "%s is not a man page", p)
		require.Contains(t, page, "git-mem "+Version().Version, p)
		require.NotContains(t, page, "spf13", p)
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "git-mem-"), ".1")
		if name != "git-mem" {
			require.Contains(t, page, `git mem `+name, p)
		}
	}
	root, err := os.ReadFile(want[0])
	require.NoError(t, err)
	for _, g := range commandGroups {
		require.Contains(t, string(root), strings.TrimSuffix(g.Title, ":"), "the root page lists the commands under their headings")
	}
	hook, err := os.ReadFile(filepath.Join(dir, "man1", "git-mem-hook.1"))
	require.NoError(t, err)
	require.Contains(t, string(hook), "<git common dir>/mem/hooks.log", "help text is not read as Markdown")
	// every page is sound roff: groff, which man runs, warns of nothing
	groff, err := exec.LookPath("groff")
	require.NoError(t, err, "groff (man-db's formatter) is needed to check the pages")
	for _, p := range pages {
		var stderr bytes.Buffer
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z", p)
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), p)
		require.Empty(t, stderr.String(), p)
	}
	add, err := os.ReadFile(filepath.Join(dir, "man1", "git-mem-add.1"))
	require.NoError(t, err)
	require.Contains(t, string(add), `\fB\-\-supersedes\fP \fIid\fP`, "flags with their argument")
	require.Contains(t, string(add), ".SH OPTIONS INHERITED FROM PARENT COMMANDS\n.TP\n\\fB\\-C\\fP, \\fB\\-\\-directory\\fP \\fIpath\\fP")
}

// TestHelpGroupsEveryCommand: git mem help files every visible command under
// one of the headings, hides the developers' eval, and says "git mem".
func TestHelpGroupsEveryCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	env := testEnv(&out, &errOut)
	root := newRootCmd(env)
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			require.NotEmpty(t, c.GroupID, "git mem %s has no heading in git mem help: add it to commandGroup", c.Name())
		}
	}
	require.Equal(t, 0, Run(t.Context(), env, []string{"help"}), errOut.String())
	help := out.String()
	require.Contains(t, help, "Usage:\n  git mem [command]")
	require.NotContains(t, help, "git-mem [command]")
	require.NotRegexp(t, `(?m)^  eval\b`, help)
	last := -1
	for _, g := range commandGroups {
		i := strings.Index(help, "\n"+g.Title+"\n")
		require.Greater(t, i, last, "heading %q missing or out of order", g.Title)
		last = i
	}
	for _, tc := range []struct{ command, group string }{{"add", "memory"}, {"boot", "sessions"}, {"sync", "sharing"}, {"install", "setup"}, {"doctor", "maintenance"}} {
		c, _, err := root.Find([]string{tc.command})
		require.NoError(t, err)
		require.Equal(t, tc.group, c.GroupID, tc.command)
	}

	out.Reset()
	require.Equal(t, 0, Run(t.Context(), env, []string{"help", "add"}), errOut.String())
	require.Contains(t, out.String(), "Usage:\n  git mem add [flags] -- TEXT")

	out.Reset()
	errOut.Reset()
	require.Equal(t, 2, Run(t.Context(), env, []string{"show", "--bogus"}))
	require.Contains(t, errOut.String(), "Run 'git mem help show' for usage.", "the hint works without man pages")
	errOut.Reset()
	require.Equal(t, 2, Run(t.Context(), env, []string{"frobnicate"}))
	require.Contains(t, errOut.String(), "Run 'git mem help' for usage.")
}

// TestVersionFromBuildInfo: the version line is read from the build
// information: the module version, else (devel) with the commit, its time
// and whether the tree was modified.
func TestVersionFromBuildInfo(t *testing.T) {
	cases := []struct {
		name     string
		info     *debug.BuildInfo
		ok       bool
		want     string
		wantJSON string
	}{
		{"go install at a tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, true,
			"git-mem version v1.2.3 (go1.26.8)\n", `"version": "v1.2.3"`},
		{"built in a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3f2a9c41d0e8b7a2c4d6e8f0a1b3c5d7e9f1a3b5"}, {Key: "vcs.time", Value: "2026-11-30T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true,
			"git-mem version (devel) 3f2a9c41d0e8 2026-11-30T08:00:00Z modified (go1.26.8)\n", `"commit": "3f2a9c41d0e8b7a2c4d6e8f0a1b3c5d7e9f1a3b5"`},
		{"clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3f2a9c41d0e8b7a2c4d6e8f0a1b3c5d7e9f1a3b5"}, {Key: "vcs.modified", Value: "false"}}}, true,
			"git-mem version (devel) 3f2a9c41d0e8 (go1.26.8)\n", `"version": "(devel)"`},
		{"no build information", nil, false, "git-mem version (devel) (", `"version": "(devel)"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			readBuildInfo = func() (*debug.BuildInfo, bool) { return tc.info, tc.ok }
			t.Cleanup(func() { readBuildInfo = debug.ReadBuildInfo })
			for _, args := range [][]string{{"version"}, {"--version"}} {
				var out, errOut bytes.Buffer
				require.Equal(t, 0, Run(t.Context(), testEnv(&out, &errOut), args), errOut.String())
				require.True(t, strings.HasPrefix(out.String(), tc.want), "%v: %q", args, out.String())
			}
			var out, errOut bytes.Buffer
			require.Equal(t, 0, Run(t.Context(), testEnv(&out, &errOut), []string{"version", "--json"}), errOut.String())
			require.Contains(t, out.String(), tc.wantJSON)
			f := checkVersion(t.Context(), nil, nil, nil)
			require.Len(t, f, 1)
			require.Contains(t, f[0].Message, strings.TrimSuffix(strings.TrimPrefix(tc.want, "git-mem version "), "\n"))
		})
	}
}

// TestProgressOnlyOnATerminal: a progress bar is drawn on stderr, and only
// when stderr is a terminal; stdout never sees it.
func TestProgressOnlyOnATerminal(t *testing.T) {
	cases := []struct {
		name           string
		outTerm, errTe bool
		quiet          bool
		drawn          bool
	}{
		{"pipe", false, false, false, false},
		{"stdout a terminal, stderr not", true, false, false, false},
		{"stderr a terminal", false, true, false, true},
		{"stderr a terminal, --json", false, true, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := testEnv(&out, &errOut)
			env.Terminal, env.ErrTerminal = tc.outTerm, tc.errTe
			bar := newProgress(env, "indexing", tc.quiet)
			for i := 0; i <= 10; i++ {
				bar.Update(i, 10)
			}
			bar.Done()
			require.Empty(t, out.String())
			if !tc.drawn {
				require.Empty(t, errOut.String())
				return
			}
			require.Contains(t, errOut.String(), "\rindexing [##############################] 10/10")
			require.True(t, strings.HasSuffix(errOut.String(), "\n"))
		})
	}
}
