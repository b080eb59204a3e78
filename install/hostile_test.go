package install_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

// fileKind is the format of one of an agent's config files.
type fileKind int

const (
	kindJSON fileKind = iota
	kindTOML
	kindMarkdown
	kindPlugin // OpenCode's plugin file: git-mem's own
)

// agentFile is one config file of an agent, by path and format.
type agentFile struct {
	path string
	kind fileKind
}

// agentFiles lists the distinct config files install edits for o.
func agentFiles(t *testing.T, o install.InstallOptions) []agentFile {
	t.Helper()
	hooks, mcp, instr, err := install.Paths(o)
	require.NoError(t, err)
	var out []agentFile
	seen := map[string]bool{}
	add := func(p string, k fileKind) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, agentFile{p, k})
		}
	}
	switch {
	case o.Agent == agents.OpenCode:
		add(hooks, kindPlugin)
	default:
		add(hooks, kindJSON)
	}
	if strings.HasSuffix(mcp, ".toml") {
		add(mcp, kindTOML)
	} else {
		add(mcp, kindJSON)
	}
	add(instr, kindMarkdown)
	return out
}

// userContent is a file of the user's own in each format.
func userContent(k fileKind) string {
	switch k {
	case kindTOML:
		return "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other-server\"\nargs = [\"--port\", \"9\"]\n"
	case kindMarkdown:
		return "# Project notes\n\nUse tabs, not spaces.\n"
	default:
		return "{\n  // the user's own settings\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"other-server\"}\n  },\n}\n"
	}
}

// hostileCase is one kind of existing configuration install meets.
type hostileCase struct {
	name string
	// setup writes the existing files for the agent (in files), and
	// returns the files that must keep their bytes.
	setup func(t *testing.T, base string, files []agentFile)
	// refuse: install must fail and write nothing.
	refuse bool
	// onlyKind limits the case to agents with a file of this kind.
	onlyKind *fileKind
	// note, when set, is what the report of install and uninstall must say
	// (of install only, with installNoteOnly: uninstall finds nothing of
	// git-mem's in the file to speak of).
	note            string
	installNoteOnly bool
}

func kindPtr(k fileKind) *fileKind { return &k }

func writeEach(t *testing.T, files []agentFile, content func(f agentFile) (string, bool)) {
	for _, f := range files {
		if c, ok := content(f); ok {
			require.NoError(t, os.MkdirAll(filepath.Dir(f.path), 0o755))
			require.NoError(t, os.WriteFile(f.path, []byte(c), 0o644))
		}
	}
}

func hostileCases() []hostileCase {
	return []hostileCase{
		{name: "user content", setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) { return userContent(f.kind), f.kind != kindPlugin })
		}},
		{name: "no final newline", setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return strings.TrimSuffix(userContent(f.kind), "\n"), f.kind != kindPlugin
			})
		}},
		{name: "symlinked to dotfiles", setup: func(t *testing.T, base string, files []agentFile) {
			for i, f := range files {
				if f.kind == kindPlugin {
					continue
				}
				target := filepath.Join(base, "dotfiles", filepath.Base(f.path)+"-"+string(rune('a'+i)))
				require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
				require.NoError(t, os.WriteFile(target, []byte(userContent(f.kind)), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Dir(f.path), 0o755))
				rel, err := filepath.Rel(filepath.Dir(f.path), target)
				require.NoError(t, err)
				require.NoError(t, os.Symlink(rel, f.path))
			}
		}},
		{name: "quoted begin marker", onlyKind: kindPtr(kindMarkdown), setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "# Notes\n\nOur block starts with `" + install.InstructionsBegin + "` and ends with the end marker.\n\nKeep this line.\n", f.kind == kindMarkdown
			})
		}},
		{name: "begin marker in a code fence", onlyKind: kindPtr(kindMarkdown), setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "# Notes\n\n```markdown\n" + install.InstructionsBegin + "\n```\n\nKeep this line.\n", f.kind == kindMarkdown
			})
		}},
		{name: "begin marker without end", onlyKind: kindPtr(kindMarkdown), note: "without its end marker", setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "# Notes\n\n" + install.InstructionsBegin + "\nan edited block whose end line was deleted\n\nKeep this line.\n", f.kind == kindMarkdown
			})
		}},
		{name: "a code block never closed", onlyKind: kindPtr(kindMarkdown), note: "never closed", installNoteOnly: true, setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "# Notes\n\n```sh\nmake test\n", f.kind == kindMarkdown
			})
		}},
		{name: "user's empty objects", onlyKind: kindPtr(kindJSON), setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "{\n  \"mcpServers\": { },\n  \"mcp\": {},\n  \"hooks\": {\n  }\n}\n", f.kind == kindJSON
			})
		}},
		{name: "user's own git-mem server", setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				switch f.kind {
				case kindTOML:
					return "[mcp_servers.git-mem]\ncommand = \"/opt/tools/git-mem\"\nargs = [\"mcp\", \"--agent\", \"codex\"]\n", true
				case kindJSON:
					return "{\n  \"mcpServers\": {\n    \"git-mem\": {\"command\": \"/opt/tools/git-mem\", \"args\": [\"mcp\"], \"env\": {\"GIT_MEM_DEBUG\": \"1\"}}\n  },\n  \"mcp\": {\n    \"git-mem\": {\"type\": \"local\", \"command\": [\"/opt/tools/git-mem\", \"mcp\"]}\n  }\n}\n", true
				}
				return "", false
			})
		}},
		{name: "duplicated key", refuse: true, onlyKind: kindPtr(kindJSON), setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}},\n  \"hooks\": {},\n  \"mcp\": {},\n  \"mcpServers\": {\"b\": {\"command\": \"y\"}}\n}\n", f.kind == kindJSON
			})
		}},
		{name: "invalid last file", refuse: true, setup: func(t *testing.T, base string, files []agentFile) {
			last := -1
			for i, f := range files {
				if f.kind == kindJSON || f.kind == kindTOML {
					last = i
				}
			}
			writeEach(t, files, func(f agentFile) (string, bool) {
				switch {
				case f.kind == kindPlugin:
					return "", false
				case f.path == files[last].path && f.kind == kindTOML:
					return "model = \"o3\"\n[mcp_servers\n", true
				case f.path == files[last].path:
					return "{\n  \"mcpServers\": {\n", true
				}
				return userContent(f.kind), true
			})
		}},
		{name: "Codex inline table", refuse: true, onlyKind: kindPtr(kindTOML), setup: func(t *testing.T, base string, files []agentFile) {
			writeEach(t, files, func(f agentFile) (string, bool) {
				return "model = \"o3\"\nmcp_servers = { other = { command = \"other-server\" } }\n", f.kind == kindTOML
			})
		}},
	}
}

// snapshot reads every file under dir: path to content, and for a
// symlink its target prefixed with "-> ".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "-> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = string(data)
		}
		return nil
	}))
	return out
}

// TestInstallHostileConfigs: for every agent and every kind of hostile
// existing configuration, install either refuses before writing anything
// or succeeds, and uninstall then gives back every file byte for byte (and
// every symlink as a symlink to the same file).
func TestInstallHostileConfigs(t *testing.T) {
	isolate(t)
	for _, agent := range agents.Names {
		for _, c := range hostileCases() {
			t.Run(agent+"/"+c.name, func(t *testing.T) {
				base := t.TempDir()
				root, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
				require.NoError(t, os.MkdirAll(root, 0o755))
				require.NoError(t, os.MkdirAll(home, 0o755))
				o := install.InstallOptions{Agent: agent, Root: root, Home: home, Binary: "git-mem",
					StateFile: filepath.Join(base, "state", "install.json")}
				files := agentFiles(t, o)
				if c.onlyKind != nil {
					has := false
					for _, f := range files {
						has = has || f.kind == *c.onlyKind
					}
					if !has {
						t.Skip("no file of this kind")
					}
				}
				c.setup(t, base, files)
				before := snapshot(t, base)
				ctx := context.Background()
				rep, err := install.Install(ctx, o)
				if c.note != "" {
					require.NoError(t, err)
					require.Contains(t, strings.Join(rep.Notes, "\n"), c.note)
				}
				if c.refuse {
					require.Error(t, err)
					require.Equal(t, before, snapshot(t, base), "a refused install wrote nothing")
					return
				}
				require.NoError(t, err)
				after := snapshot(t, base)
				for _, f := range files {
					if st, err := os.Lstat(f.path); err == nil && before[rel(base, f.path)] != "" && strings.HasPrefix(before[rel(base, f.path)], "-> ") {
						require.True(t, st.Mode()&os.ModeSymlink != 0, "%s stays a symlink", f.path)
					}
				}
				for _, f := range files {
					requireValid(t, f)
				}
				_, err = install.Install(ctx, o)
				require.NoError(t, err)
				require.Equal(t, after, snapshot(t, base), "a second install changes nothing")
				rep, err = install.Uninstall(ctx, o)
				require.NoError(t, err)
				if c.note != "" && !c.installNoteOnly {
					require.Contains(t, strings.Join(rep.Notes, "\n"), c.note)
				}
				got := snapshot(t, base)
				delete(got, filepath.Join("state", "install.json"))
				require.Equal(t, before, got, "uninstall gives every file back")
			})
		}
	}
}

func rel(base, p string) string {
	r, _ := filepath.Rel(base, p)
	return r
}

// requireValid fails when an installed config file no longer parses as
// what its agent reads.
func requireValid(t testing.TB, f agentFile) {
	t.Helper()
	data, err := os.ReadFile(f.path)
	if os.IsNotExist(err) {
		return
	}
	require.NoError(t, err)
	switch f.kind {
	case kindJSON:
		v, err := hujson.Parse(data)
		require.NoError(t, err, "%s is valid JSON with comments:\n%s", f.path, data)
		v.Standardize()
		require.True(t, json.Valid(v.Pack()), f.path)
	case kindTOML:
		var m map[string]any
		require.NoError(t, toml.Unmarshal(data, &m), "%s is valid TOML:\n%s", f.path, data)
	}
}

// TestInstallSharedInstructionsThroughSymlink: with CLAUDE.md a symlink to
// AGENTS.md, Claude Code and Codex share one instruction file. Installing
// both writes one block through the link; uninstalling one keeps it for the
// other; uninstalling both gives AGENTS.md back byte for byte, and the link
// stays a link.
func TestInstallSharedInstructionsThroughSymlink(t *testing.T) {
	isolate(t)
	base := t.TempDir()
	root, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.MkdirAll(home, 0o755))
	const agentsMD = "# Agents\n\nRun make test before a commit."
	write(t, root, "AGENTS.md", agentsMD)
	require.NoError(t, os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md")))
	opts := func(agent string) install.InstallOptions {
		return install.InstallOptions{Agent: agent, Root: root, Home: home, Binary: "git-mem", StateFile: filepath.Join(base, "state.json")}
	}
	ctx := context.Background()
	for _, a := range []string{agents.Claude, agents.Codex} {
		_, err := install.Install(ctx, opts(a))
		require.NoError(t, err)
	}
	data, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), install.InstructionsEnd), "one block")
	_, err = install.Uninstall(ctx, opts(agents.Claude))
	require.NoError(t, err)
	data, err = os.ReadFile(filepath.Join(root, "AGENTS.md"))
	require.NoError(t, err)
	require.Contains(t, string(data), install.InstructionsEnd, "Codex still reads the block")
	_, err = install.Uninstall(ctx, opts(agents.Codex))
	require.NoError(t, err)
	data, err = os.ReadFile(filepath.Join(root, "AGENTS.md"))
	require.NoError(t, err)
	require.Equal(t, agentsMD, string(data))
	st, err := os.Lstat(filepath.Join(root, "CLAUDE.md"))
	require.NoError(t, err)
	require.True(t, st.Mode()&os.ModeSymlink != 0, "CLAUDE.md is still a link")
}
