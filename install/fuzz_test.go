package install_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

// FuzzInstallConfig writes three existing config files for an agent (Claude
// Code's settings.json, .mcp.json and CLAUDE.md, or Codex's hooks.json,
// config.toml and AGENTS.md) and installs. Whatever the files hold, install
// either fails with every file as it was, or leaves each file still valid
// for its agent; and when the files held nothing of git-mem's to begin with,
// uninstall then gives each back byte for byte. A blank input stands for a
// missing file.
func FuzzInstallConfig(f *testing.F) {
	seeds := []struct {
		codex            bool
		hooks, mcp, text string
	}{
		{false, userContent(kindJSON), userContent(kindJSON), userContent(kindMarkdown)},
		{true, userContent(kindJSON), userContent(kindTOML), userContent(kindMarkdown)},
		{false, "{\"mcpServers\": { }, \"hooks\": {\n}}", "{}", "no final newline"},
		{true, "{}", "model = \"o3\"\nmcp_servers = { other = { command = \"x\" } }\n", "```\n" + install.InstructionsBegin + "\n```\n"},
		{false, "{\"a\": 1, \"a\": 2}", "[1]", install.InstructionsBegin + "\nunterminated\n"},
		{true, "", "[mcp_servers.other]\ncommand = \"x\"", "a\r\nb\r\n"},
		{false, "{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]}}\n", "// only a comment\n{}\n", ""},
	}
	for _, s := range seeds {
		f.Add(s.codex, s.hooks, s.mcp, s.text)
	}
	f.Fuzz(func(t *testing.T, codex bool, hooks, mcp, text string) {
		base := t.TempDir()
		root, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
		require.NoError(t, os.MkdirAll(root, 0o755))
		require.NoError(t, os.MkdirAll(home, 0o755))
		agent := agents.Claude
		if codex {
			agent = agents.Codex
		}
		o := install.InstallOptions{Agent: agent, Root: root, Home: home, Binary: "git-mem",
			StateFile: filepath.Join(base, "state", "install.json")}
		files := agentFiles(t, o)
		require.Len(t, files, 3)
		ours := false
		for i, content := range []string{hooks, mcp, text} {
			if strings.TrimSpace(content) == "" {
				continue
			}
			ours = ours || strings.Contains(strings.ToLower(content), "git-mem") || strings.Contains(content, "git mem")
			require.NoError(t, os.MkdirAll(filepath.Dir(files[i].path), 0o755))
			require.NoError(t, os.WriteFile(files[i].path, []byte(content), 0o644))
		}
		before := snapshot(t, base)
		ctx := context.Background()
		if _, err := install.Install(ctx, o); err != nil {
			require.Equal(t, before, snapshot(t, base), "a failed install wrote nothing: %v", err)
			return
		}
		for _, f := range files {
			if f.kind == kindMarkdown || !validBefore(before, base, f) {
				continue
			}
			requireValid(t, f)
		}
		if ours {
			return
		}
		_, err := install.Uninstall(ctx, o)
		require.NoError(t, err)
		got := snapshot(t, base)
		delete(got, filepath.Join("state", "install.json"))
		require.Equal(t, before, got, "uninstall gives every file back")
	})
}

// validBefore reports whether a file was missing, or parsed as its format,
// before the install: an install may only keep a file valid that was.
func validBefore(before map[string]string, base string, f agentFile) bool {
	content, ok := before[rel(base, f.path)]
	if !ok {
		return true
	}
	tmp, err := os.CreateTemp("", "valid-*")
	if err != nil {
		return false
	}
	defer os.Remove(tmp.Name())
	tmp.Write([]byte(content))
	tmp.Close()
	ok = true
	t := &probe{}
	func() {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		requireValid(t, agentFile{tmp.Name(), f.kind})
	}()
	return ok && !t.failed && !bytes.Contains([]byte(content), []byte{0})
}

// probe is a testing.TB that records a failure instead of stopping.
type probe struct {
	testing.TB
	failed bool
}

func (p *probe) Helper()                           {}
func (p *probe) Errorf(format string, args ...any) { p.failed = true }
func (p *probe) FailNow()                          { p.failed = true; panic("probe") }
