package install_test

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/install"
)

const installFixtures = "../fixtures/install"

var update = flag.Bool("update", false, "rewrite the *.installed files under fixtures/install")

// copyTree copies a fixture directory into dir and returns its files
// (relative paths) and contents.
func copyTree(t *testing.T, from, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".installed") {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = string(data)
		write(t, filepath.Join(dir, filepath.Dir(rel)), filepath.Base(rel), string(data))
		return nil
	}))
	return files
}

// TestInstallByteExact: over config files with comments, trailing commas and
// odd formatting, install changes only git-mem's own entries (the result is
// compared with fixtures/install/**/*.installed), a second install changes
// nothing, and uninstall gives every file back byte for byte and removes the
// files install created.
func TestInstallByteExact(t *testing.T) {
	isolate(t)
	cases := []struct {
		dir, agent string
		user       bool
	}{
		{"claude", agents.Claude, false},
		{"claude-user", agents.Claude, true},
		{"codex", agents.Codex, false},
		{"gemini", agents.Gemini, false},
		{"cursor", agents.Cursor, false},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			base := t.TempDir()
			root, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
			target := root
			if c.user {
				target = home
			}
			require.NoError(t, os.MkdirAll(root, 0o755))
			require.NoError(t, os.MkdirAll(home, 0o755))
			orig := copyTree(t, filepath.Join(installFixtures, c.dir), target)
			o := install.InstallOptions{Agent: c.agent, User: c.user, Root: root, Home: home, Binary: "git-mem",
				StateFile: filepath.Join(base, "state", "install.json")}
			ctx := context.Background()

			rep, err := install.Install(ctx, o)
			require.NoError(t, err)
			for rel, before := range orig {
				data, err := os.ReadFile(filepath.Join(target, rel))
				require.NoError(t, err)
				if strings.HasSuffix(rel, ".json") {
					v, err := hujson.Parse(slices.Clone(data)) // Standardize writes in place
					require.NoError(t, err, "%s stays JSON (with comments)", rel)
					v.Standardize()
					require.True(t, json.Valid(v.Pack()), rel)
				}
				golden := filepath.Join(installFixtures, c.dir, rel+".installed")
				if *update {
					require.NoError(t, os.WriteFile(golden, data, 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./install -run TestInstallByteExact -update")
				require.Equal(t, string(want), string(data), "install of %s", rel)
				require.NotEqual(t, before, string(data), "install changed %s", rel)
			}
			var created []string
			for _, fc := range rep.Files {
				rel, _ := filepath.Rel(target, fc.Path)
				if _, ok := orig[rel]; !ok {
					require.Equal(t, "created", fc.Action, fc.Path)
					created = append(created, fc.Path)
				}
			}

			rep, err = install.Install(ctx, o)
			require.NoError(t, err)
			for _, fc := range rep.Files {
				require.Equal(t, "unchanged", fc.Action, "a second install changes nothing in %s", fc.Path)
			}

			_, err = install.Uninstall(ctx, o)
			require.NoError(t, err)
			for rel, before := range orig {
				data, err := os.ReadFile(filepath.Join(target, rel))
				require.NoError(t, err)
				require.Equal(t, before, string(data), "uninstall gives %s back byte for byte", rel)
			}
			for _, p := range created {
				require.NoFileExists(t, p, "uninstall removes what install created")
			}
			require.NoFileExists(t, o.StateFile, "uninstall forgets what it kept")
		})
	}
}

// TestInstallKeepsUserServerEdits: re-installing over a git-mem MCP server
// the user changed (other arguments after "mcp", an env) updates the
// command only.
func TestInstallKeepsUserServerEdits(t *testing.T) {
	isolate(t)
	cases := []struct {
		agent, rel, before, after string
	}{
		{agents.Codex, ".codex/config.toml",
			"model = \"o3\"\n\n[mcp_servers.git-mem]\ncommand = \"/opt/old/git-mem\" # moved\nargs = [\"mcp\", \"--verbose\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.git-mem.env]\nGIT_MEM_AGENT = \"codex-ci\"\n\n[profiles.x]\nmodel = \"o4\"\n",
			"model = \"o3\"\n\n[mcp_servers.git-mem]\ncommand = \"git-mem\" # moved\nargs = [\"mcp\", \"--verbose\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.git-mem.env]\nGIT_MEM_AGENT = \"codex-ci\"\n\n[profiles.x]\nmodel = \"o4\"\n"},
		{agents.Codex, ".codex/config.toml",
			"[mcp_servers.\"git-mem\"]\ncommand = \"git-mem\"\n",
			"[mcp_servers.\"git-mem\"]\ncommand = \"git-mem\"\nargs = [\"mcp\"]\n"},
		{agents.Claude, ".mcp.json",
			"{\n  \"mcpServers\": {\n    \"git-mem\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/old/git-mem\",\n      \"args\": [\"mcp\", \"--verbose\"],\n      \"env\": {\"GIT_MEM_AGENT\": \"claude-ci\"}\n    }\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"git-mem\": {\n      \"type\": \"stdio\",\n      \"command\": \"git-mem\",\n      \"args\": [\"mcp\", \"--verbose\"],\n      \"env\": {\"GIT_MEM_AGENT\": \"claude-ci\"}\n    }\n  }\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.agent+" "+c.rel, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, filepath.Dir(c.rel)), filepath.Base(c.rel), c.before)
			o := install.InstallOptions{Agent: c.agent, Root: root, Home: t.TempDir(), Binary: "git-mem"}
			_, err := install.Install(context.Background(), o)
			require.NoError(t, err)
			data, err := os.ReadFile(filepath.Join(root, c.rel))
			require.NoError(t, err)
			require.Equal(t, c.after, string(data))
		})
	}
}

// TestInstallTOMLStringIsNoTable: a multi-line string holding a line like
// [mcp_servers.git-mem] is a string: install neither edits it nor takes it
// for git-mem's table, and the file stays valid TOML with one such table.
func TestInstallTOMLStringIsNoTable(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	const before = "notes = \"\"\"\n[mcp_servers.git-mem]\ncommand = \"evil\"\n\"\"\"\n"
	write(t, filepath.Join(root, ".codex"), "config.toml", before)
	o := install.InstallOptions{Agent: agents.Codex, Root: root, Home: t.TempDir(), Binary: "git-mem"}
	_, err := install.Install(context.Background(), o)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, ".codex", "config.toml"))
	require.NoError(t, err)
	require.Equal(t, before+"\n# git-mem MCP server (managed by git mem install)\n[mcp_servers.git-mem]\ncommand = \"git-mem\"\nargs = [\"mcp\"]\n", string(data))
	_, err = install.Uninstall(context.Background(), o)
	require.NoError(t, err)
	data, err = os.ReadFile(filepath.Join(root, ".codex", "config.toml"))
	require.NoError(t, err)
	require.Equal(t, before, string(data))
}

// TestHookCommandWithoutBinary: the hook commands install writes exit 0,
// printing nothing, on a machine where the hook binary is not on PATH (a
// teammate without git-mem, with the project's committed config), and run
// it, stdin and exit status included, where it is.
func TestHookCommandWithoutBinary(t *testing.T) {
	isolate(t)
	shPath, err := exec.LookPath("sh")
	require.NoError(t, err)
	bare := t.TempDir() // a PATH with sh and nothing of git-mem
	require.NoError(t, os.Symlink(shPath, filepath.Join(bare, "sh")))
	withHook := t.TempDir()
	write(t, withHook, "git-mem-hook", "#!/bin/sh\necho \"ran: $*\"\nIFS= read -r line\nprintf %s \"$line\"\nexit 3\n")
	require.NoError(t, os.Chmod(filepath.Join(withHook, "git-mem-hook"), 0o755))
	for _, agent := range agents.Names {
		t.Run(agent, func(t *testing.T) {
			root := t.TempDir()
			o := install.InstallOptions{Agent: agent, Root: root, Home: t.TempDir(), Binary: "git-mem", HookBinary: "git-mem-hook"}
			_, err := install.Install(context.Background(), o)
			require.NoError(t, err)
			hooksFile, _, _, err := install.Paths(o)
			require.NoError(t, err)
			data, err := os.ReadFile(hooksFile)
			require.NoError(t, err)
			if agent == agents.OpenCode {
				// the plugin's command lines are a JSON object literal
				_, obj, ok := strings.Cut(string(data), "const COMMANDS = ")
				require.True(t, ok)
				obj, _, ok = strings.Cut(obj, ";\n")
				require.True(t, ok)
				var m map[string]string
				require.NoError(t, json.Unmarshal([]byte(obj), &m))
				data, _ = json.Marshal(map[string]any{"hooks": []any{map[string]any{"command": m[agents.EventSessionStart]}, map[string]any{"command": m[agents.EventPrompt]}, map[string]any{"command": m[agents.EventSessionEnd]}}})
			}
			var cmds []string
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case map[string]any:
					if c, ok := v["command"].(string); ok {
						cmds = append(cmds, c)
					}
					for k, x := range v {
						if k != "mcpServers" {
							walk(x)
						}
					}
				case []any:
					for _, x := range v {
						walk(x)
					}
				}
			}
			var doc any
			require.NoError(t, json.Unmarshal(data, &doc))
			walk(doc)
			require.NotEmpty(t, cmds)
			for _, c := range cmds {
				require.True(t, install.IsOwnCommand(c), c)
				run := exec.Command(shPath, "-c", c)
				run.Env = []string{"PATH=" + bare}
				run.Stdin = strings.NewReader(`{"session_id":"s"}`)
				out, err := run.CombinedOutput()
				require.NoError(t, err, "%s without the binary: %s", c, out)
				require.Empty(t, string(out), c)

				run = exec.Command(shPath, "-c", c)
				run.Env = []string{"PATH=" + bare + string(os.PathListSeparator) + withHook}
				run.Stdin = strings.NewReader(`{"session_id":"s"}`)
				out, err = run.CombinedOutput()
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit)
				require.Equal(t, 3, exit.ExitCode(), "the hook's own exit status")
				require.Equal(t, "ran: "+strings.TrimPrefix(install.HookLine(c), "git-mem-hook ")+"\n"+`{"session_id":"s"}`, string(out))
			}
		})
	}
}
