package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/git-mem/git-mem/agents"
)

// OpenCode has no command hooks: its lifecycle extension point is a
// JavaScript plugin loaded from .opencode/plugins (or the user's
// ~/.config/opencode/plugins). git mem install opencode writes one, wholly
// git-mem's, that runs the same hook commands as the other agents with
// Claude-shaped payloads (docs/agents.md):
//
//   - chat.message, the first time a session is seen: session-start; every
//     user message: prompt. What they return is added to the message as a
//     synthetic text part, which reaches the model with the user's text.
//   - the session.idle event (the turn is over; opencode run exits on it):
//     session-end, so a session's note is written when its work stops.
//
// The MCP server goes into opencode.json under "mcp" as a local server.

// openCodePluginMark opens the plugin file: install rewrites a file that
// starts with it, and uninstall removes only such a file.
const openCodePluginMark = "// git-mem plugin for OpenCode (managed by git mem install opencode; edits are replaced)"

// openCodePlugin is the plugin's source; %s is the JSON object of the hook
// command lines by event.
const openCodePlugin = openCodePluginMark + `
import { spawnSync } from "node:child_process";

const COMMANDS = %s;
const started = new Set();

// hook runs one git-mem hook with a Claude-shaped payload and returns the
// context it asks to add (empty on any failure: a hook never breaks a turn).
function hook(event, payload) {
  const r = spawnSync(COMMANDS[event], { shell: true, input: JSON.stringify(payload), encoding: "utf8", timeout: 15000 });
  if (r.status !== 0 || !r.stdout) return "";
  try {
    return JSON.parse(r.stdout)?.hookSpecificOutput?.additionalContext ?? "";
  } catch {
    return "";
  }
}

export const GitMem = async ({ directory }) => ({
  "chat.message": async (input, output) => {
    try {
      const first = output.parts.find((p) => p.type === "text");
      if (!first || !input.sessionID) return;
      const text = output.parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
      const base = { session_id: input.sessionID, cwd: directory };
      const context = [];
      if (!started.has(input.sessionID)) {
        started.add(input.sessionID);
        context.push(hook("session-start", { ...base, hook_event_name: "SessionStart", source: "startup" }));
      }
      context.push(hook("prompt", { ...base, hook_event_name: "UserPromptSubmit", prompt: text }));
      for (const [i, c] of context.filter((c) => c).entries()) {
        output.parts.push({ ...first, id: first.id + "gitmem" + i, synthetic: true, text: c });
      }
    } catch {
      // a memory hook never breaks the user's turn
    }
  },
  event: async ({ event }) => {
    try {
      if (event.type === "session.idle" && event.properties?.sessionID) {
        hook("session-end", { session_id: event.properties.sessionID, cwd: directory, hook_event_name: "SessionEnd", reason: "idle" });
      }
    } catch {
      // likewise
    }
  },
});
`

// openCodeEvents are the hook events the plugin runs.
var openCodeEvents = []string{agents.EventSessionStart, agents.EventPrompt, agents.EventSessionEnd}

// openCodePluginSource is the plugin for the options' hook commands.
func openCodePluginSource(o InstallOptions) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	for i, e := range openCodeEvents {
		k, v := jsString(e), jsString(o.hookCommand(e))
		sep := ","
		if i == len(openCodeEvents)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s: %s%s\n", k, v, sep)
	}
	b.WriteString("}")
	return []byte(fmt.Sprintf(openCodePlugin, b.String()))
}

// jsString is s as a JavaScript string literal (JSON, with <, > and & left
// as they are: the command lines' redirections stay readable).
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// openCodePluginEdit writes or removes the plugin file; a file at that path
// that is not git-mem's is an error (install) or left alone (uninstall).
func openCodePluginEdit(o InstallOptions, install bool) func(old []byte, exists bool) ([]byte, error) {
	return func(old []byte, exists bool) ([]byte, error) {
		own := !exists || strings.HasPrefix(string(old), openCodePluginMark)
		switch {
		case install && !own:
			return nil, fmt.Errorf("a plugin of that name that is not git-mem's is in the way; move it, then run again")
		case install:
			return openCodePluginSource(o), nil
		case !own:
			return old, nil
		}
		return nil, nil
	}
}

// openCodeCommandsRe finds the command lines in a plugin file.
var openCodeCommandsRe = regexp.MustCompile(`(?m)^  "([a-z-]+)": ("(?:[^"\\]|\\.)*"),?$`)

// inspectOpenCodePlugin reads git-mem's plugin: its events and commands.
func inspectOpenCodePlugin(path string, in *Installed) {
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(data), openCodePluginMark) {
		return
	}
	in.Hooks = true
	for _, m := range openCodeCommandsRe.FindAllStringSubmatch(string(data), -1) {
		var cmd string
		if json.Unmarshal([]byte(m[2]), &cmd) == nil {
			in.Events = append(in.Events, m[1])
			in.Commands = append(in.Commands, HookLine(cmd))
		}
	}
}

// isOwnOpenCodeServer reports whether an opencode.json "mcp" entry runs
// git-mem's server: {"type":"local","command":["git-mem","mcp"]}.
func isOwnOpenCodeServer(name string, v any) bool {
	if name == MCPServerName {
		return true
	}
	s, ok := v.(*jobj)
	if !ok {
		return false
	}
	words := jsonStrings(s.vals["command"])
	return len(words) > 0 && isOwnServerCommand(name, words[0], words[1:])
}

// addOpenCodeMCP sets git-mem's server in opencode.json's "mcp" object.
func addOpenCodeMCP(root *jobj, o InstallOptions) error {
	servers, err := root.obj("mcp")
	if err != nil {
		return err
	}
	var srv *jobj
	if v, ok := servers.get(MCPServerName); ok {
		srv, _ = v.(*jobj)
	}
	for _, k := range append([]string(nil), servers.keys...) {
		if k != MCPServerName && isOwnOpenCodeServer(k, servers.vals[k]) {
			servers.del(k)
		}
	}
	if srv == nil {
		srv = newObj()
	}
	srv.set("type", "local")
	srv.set("command", []any{binaryOr(o.Binary), "mcp"})
	servers.set(MCPServerName, srv)
	return nil
}

// removeOpenCodeMCP drops git-mem's server, and "mcp" when it is left empty.
func removeOpenCodeMCP(root *jobj) { removeServers(root, "mcp", isOwnOpenCodeServer) }

// inspectOpenCodeMCP reads git-mem's server from opencode.json.
func inspectOpenCodeMCP(path string, in *Installed) {
	root := readJSONObj(path)
	if root == nil {
		return
	}
	sv, _ := root.get("mcp")
	servers, ok := sv.(*jobj)
	if !ok {
		return
	}
	for _, k := range servers.keys {
		if isOwnOpenCodeServer(k, servers.vals[k]) {
			in.MCP = true
			if s, ok := servers.vals[k].(*jobj); ok {
				if cmd, _ := s.vals["command"].([]any); len(cmd) > 0 {
					if c, ok := cmd[0].(string); ok {
						in.Commands = append(in.Commands, c)
					}
				}
			}
		}
	}
}
