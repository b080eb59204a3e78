package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// MCPServerName is the name git-mem's MCP server is registered under.
const MCPServerName = "git-mem"

// InstallOptions say what to install where.
type InstallOptions struct {
	// Agent is one of agents.Names.
	Agent string
	// User installs in the user's own config (every project) instead of the
	// repository's.
	User bool
	// Root is the repository's worktree (project scope).
	Root string
	// Home is the user's home directory; CodexHome is $CODEX_HOME (Home/.codex
	// when empty).
	Home, CodexHome string
	// Binary is the command that runs git-mem ("git-mem" when empty).
	Binary string
	// HookBinary, when set, is the git-mem-hook command the hooks run
	// ("git-mem-hook EVENT --agent AGENT", the same hooks without the
	// start-up cost of the full binary); else they run "Binary hook ...".
	HookBinary string
	// CodexBin, when set, is the codex program used to record trust for
	// git-mem's Codex hooks (codex app-server hooks/list); Env is the
	// environment it runs with.
	CodexBin string
	Env      []string
	// StateFile, when set, is where install remembers, per config file, the
	// empty objects of the user's it filled (a "mcpServers": {}), so that
	// uninstall leaves them as they were; without it uninstall drops every
	// object it empties.
	StateFile string
}

// FileChange is what an install or uninstall did to one file.
type FileChange struct {
	Path string `json:"path"`
	// Action is created, updated, unchanged or removed.
	Action string `json:"action"`
	// What names the entries: hooks, MCP server, instructions.
	What string `json:"what"`
}

// Report is the outcome of an install or uninstall.
type Report struct {
	Agent string       `json:"agent"`
	Scope string       `json:"scope"`
	Files []FileChange `json:"files"`
	// Notes are what the user still has to do (Codex hook trust).
	Notes []string `json:"notes,omitempty"`
}

// agentSpec is where and how an agent is configured (agents.Config), with
// the installer's edits as methods.
type agentSpec struct{ agents.Config }

// scope is where the options install, as the agents table takes it.
func (o InstallOptions) scope() agents.Scope {
	return agents.Scope{User: o.User, Root: o.Root, Home: o.Home, CodexHome: o.CodexHome}
}

func (o InstallOptions) codexHome() string { return o.scope().CodexDir() }

func spec(o InstallOptions) (agentSpec, error) {
	cfg, ok := agents.ConfigOf(o.Agent)
	sp := agentSpec{cfg}
	if !ok {
		return agentSpec{}, fmt.Errorf("%w: unknown agent %q; use one of %s", memerr.ErrInvalid, o.Agent, strings.Join(agents.Names, ", "))
	}
	if o.User && o.Home == "" {
		return agentSpec{}, fmt.Errorf("%w: no home directory for --user; set HOME", memerr.ErrInvalid)
	}
	if !o.User && o.Root == "" {
		return agentSpec{}, fmt.Errorf("%w: installing for a project needs a repository with a worktree; run it inside one, or pass --user", memerr.ErrNoRepo)
	}
	return sp, nil
}

// HookCommand is the command line registered for an event.
func HookCommand(binary, event, agent string) string {
	return shellQuote(binaryOr(binary)) + " hook " + event + " --agent " + agent
}

// HookBinaryName is the small hook binary built beside git-mem (cmd/git-mem-hook).
const HookBinaryName = "git-mem-hook"

// hookCommand is the command line registered for an event: git-mem-hook's
// when the options name one, else git-mem's hook verb.
// The line is guarded (guard.go): it does nothing, silently, on a machine
// without the binary.
func (o InstallOptions) hookCommand(event string) string {
	if o.HookBinary != "" {
		return guardCommand(o.HookBinary, shellQuote(o.HookBinary)+" "+event+" --agent "+o.Agent)
	}
	return guardCommand(binaryOr(o.Binary), HookCommand(o.Binary, event, o.Agent))
}

func binaryOr(b string) string {
	if b == "" {
		return "git-mem"
	}
	return b
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Install registers git-mem's hooks, MCP server and instruction block for
// an agent, merged into the existing files: other entries and the files'
// indentation are kept, and git-mem's own entries, at whatever binary path
// they were installed, are updated in place.
func Install(ctx context.Context, o InstallOptions) (*Report, error) {
	return apply(ctx, o, true)
}

// Uninstall removes git-mem's own entries (hooks, MCP server, instruction
// block) for an agent, and the files left with nothing else in them.
func Uninstall(ctx context.Context, o InstallOptions) (*Report, error) {
	return apply(ctx, o, false)
}

func apply(ctx context.Context, o InstallOptions, install bool) (*Report, error) {
	sp, err := spec(o)
	if err != nil {
		return nil, err
	}
	o.Agent = agents.Normalize(o.Agent)
	rep := &Report{Agent: o.Agent, Scope: "project"}
	if o.User {
		rep.Scope = "user"
	}
	state := loadInstallState(o.StateFile)
	stateChanged := false
	kept := func(path string) *[]string {
		k := state[path]
		return &k
	}
	hooksPath, mcpPath := sp.HooksFile(o.scope()), sp.MCPFile(o.scope())
	hooksKept, mcpKept := kept(hooksPath), kept(mcpPath)
	if hooksPath == mcpPath {
		mcpKept = hooksKept // one file, one record (Gemini, Qwen)
	}
	edits := configEdits(sp, o, install, hooksPath, mcpPath, hooksKept, mcpKept)
	planned := false // the state describes what was written: nothing, until the plan holds
	defer func() {
		if !planned {
			return
		}
		for path, k := range map[string]*[]string{hooksPath: hooksKept, mcpPath: mcpKept} {
			switch {
			case !install && len(state[path]) > 0:
				delete(state, path)
				stateChanged = true
			case install && len(*k) > len(state[path]):
				state[path] = *k
				stateChanged = true
			}
		}
		if stateChanged {
			saveInstallState(o.StateFile, state)
		}
	}()
	if p := sp.InstructionsFile(o.scope()); p != "" && (install || !sharedInstructions(o, p)) {
		edits = append(edits, edit{p, "instructions", func(old []byte, _ bool) ([]byte, error) {
			if install {
				return setInstructions(old)
			}
			return removeInstructions(old)
		}})
	}
	plan, err := planEdits(ctx, edits, install, rep)
	if err != nil {
		return rep, err
	}
	planned = true
	if err := writePlan(ctx, plan, o, rep); err != nil {
		return rep, err
	}
	trustNotes(o, install, rep)
	if o.Agent == agents.Codex {
		return rep, codexTrust(ctx, o, install, hooksPath, rep)
	}
	return rep, nil
}

// edit is one file's change: what of git-mem's the file holds (what), and
// the function that returns its new content from the old.
type edit struct {
	path, what string
	fn         func(old []byte, exists bool) ([]byte, error)
}

// configEdits are the edits of an agent's hooks and MCP server entries: one
// file or two, JSON or TOML, or OpenCode's plugin; the kept lists record
// which servers of git-mem's name were the user's before any install.
func configEdits(sp agentSpec, o InstallOptions, install bool, hooksPath, mcpPath string, hooksKept, mcpKept *[]string) []edit {
	var edits []edit
	hooksEdit := func(root *jobj) error {
		if install {
			return sp.addHooks(root, o)
		}
		sp.removeHooks(root)
		return nil
	}
	mcpEdit := func(root *jobj) error {
		if install {
			noteUserServers(root, "mcpServers", isOwnServer, mcpKept)
			return sp.addMCP(root, o)
		}
		removeMCP(root)
		restoreUserServers(root, "mcpServers", *mcpKept)
		return nil
	}
	if sp.OpenCode {
		edits = append(edits, edit{hooksPath, "plugin", openCodePluginEdit(o, install)})
		edits = append(edits, edit{mcpPath, "MCP server", jsonEdit(func(root *jobj) error {
			if install {
				noteUserServers(root, "mcp", isOwnOpenCodeServer, mcpKept)
				return addOpenCodeMCP(root, o)
			}
			removeOpenCodeMCP(root)
			restoreUserServers(root, "mcp", *mcpKept)
			return nil
		}, false, !install, mcpKept)})
	} else if hooksPath == mcpPath {
		edits = append(edits, edit{hooksPath, "hooks and MCP server", jsonEdit(func(root *jobj) error {
			if err := hooksEdit(root); err != nil {
				return err
			}
			return mcpEdit(root)
		}, sp.Flat, !install, hooksKept)})
	} else {
		edits = append(edits, edit{hooksPath, "hooks", jsonEdit(hooksEdit, sp.Flat, !install, hooksKept)})
		if sp.TOML {
			edits = append(edits, edit{mcpPath, "MCP server", func(old []byte, _ bool) ([]byte, error) {
				if install {
					if d, err := parseTOML(old); err == nil {
						noteUserTOMLServers(d, mcpKept)
					}
					return tomlSetMCP(old, o)
				}
				if keptHas(*mcpKept, userServers) {
					// the server was the user's before any install
					return restoreUserTOMLServers(old, *mcpKept), nil
				}
				return tomlRemoveMCP(old)
			}})
		} else {
			edits = append(edits, edit{mcpPath, "MCP server", jsonEdit(mcpEdit, false, !install, mcpKept)})
		}
	}
	return edits
}

// plannedEdit is an edit with the file read and its new content computed.
// Every edit is planned before any file is written: a file that cannot be
// read or edited (invalid JSON, a duplicated key, a symlink to nowhere)
// stops the whole install with every file as it was.
type plannedEdit struct {
	edit
	target string // the file written: the path, or where its symlink leads
	link   bool
	old    []byte
	exists bool
	data   []byte
}

// planEdits reads every file and computes its new content before any is
// written; a file git-mem leaves alone is said in rep.
func planEdits(ctx context.Context, edits []edit, install bool, rep *Report) ([]plannedEdit, error) {
	var plan []plannedEdit
	for _, e := range edits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		target, link, err := resolveLink(e.path)
		if err != nil {
			return nil, err
		}
		old, err := os.ReadFile(target)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if !exists && !install {
			continue
		}
		data, err := e.fn(old, exists)
		if err != nil {
			var left *LeftAloneError
			if errors.As(err, &left) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s", e.path, left.Why))
				rep.Files = append(rep.Files, FileChange{Path: e.path, What: e.what, Action: "left alone"})
				continue
			}
			return nil, fmt.Errorf("%s: %w", e.path, err)
		}
		plan = append(plan, plannedEdit{e, target, link, old, exists, data})
	}
	return plan, nil
}

// writePlan writes the planned files (a file left empty is removed) and
// says in rep what happened to each.
func writePlan(ctx context.Context, plan []plannedEdit, o InstallOptions, rep *Report) error {
	for _, p := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		fc := FileChange{Path: p.path, What: p.what}
		switch {
		case p.exists && bytes.Equal(p.old, p.data):
			fc.Action = "unchanged"
		case !p.link && (p.data == nil || len(bytes.TrimSpace(p.data)) == 0):
			if err := os.Remove(p.path); err != nil {
				return err
			}
			fc.Action = "removed"
			removeEmptyDir(filepath.Dir(p.path), o)
		default:
			// a symlink (dotfiles, CLAUDE.md -> AGENTS.md) is followed: its
			// file is written and the link stays
			fc.Action = "updated"
			if !p.exists {
				fc.Action = "created"
			}
			if err := lockfile.WriteAtomic(p.target, p.data, fileMode(p.target)); err != nil {
				return err
			}
		}
		rep.Files = append(rep.Files, fc)
	}
	return nil
}

// trustNotes says in rep when the agent asks the user to trust the
// project's configuration before it loads it.
func trustNotes(o InstallOptions, install bool, rep *Report) {
	if install && !o.User {
		switch o.Agent {
		case agents.Qwen:
			rep.Notes = append(rep.Notes, "Qwen Code asks once, when it first starts here interactively, to approve the project's MCP server git-mem; until then qwen -p runs leave it out (install with --user to skip the question)")
		case agents.Copilot:
			rep.Notes = append(rep.Notes, "the Copilot CLI loads .github/hooks and .github/mcp.json only in a folder you trusted: it asks when it first starts here")
		}
	}
}

// codexTrust records (or, uninstalling, removes) Codex's trust in the
// installed hooks, or says in rep how to.
func codexTrust(ctx context.Context, o InstallOptions, install bool, hooksPath string, rep *Report) error {
	trustPath := filepath.Join(o.codexHome(), "config.toml")
	if !install {
		if changed, err := UntrustCodexHooks(o.codexHome(), hooksPath); err != nil {
			return err
		} else if changed {
			rep.Files = append(rep.Files, FileChange{Path: trustPath, Action: "updated", What: "hook trust"})
		}
		return nil
	}
	if o.CodexBin == "" {
		rep.Notes = append(rep.Notes, CodexTrustNote(hooksPath))
		return nil
	}
	cwd := o.Root
	if cwd == "" {
		cwd = o.Home
	}
	keys, err := TrustCodexHooks(ctx, o.CodexBin, o.codexHome(), o.Env, cwd)
	if err != nil {
		why := err.Error()
		if errors.Is(err, memerr.ErrNotFound) && !o.User {
			why = "codex does not load " + filepath.Dir(hooksPath) + " yet: it reads a project's .codex only once you trusted the project (codex asks when it first starts there); then run git mem install codex again, or install with --user"
		}
		rep.Notes = append(rep.Notes, "could not record hook trust with codex: "+why+". "+CodexTrustNote(hooksPath))
		return nil
	}
	rep.Files = append(rep.Files, FileChange{Path: trustPath, Action: "updated", What: fmt.Sprintf("trust for %d hooks", len(keys))})
	return nil
}

// LeftAloneError is an edit's refusal to touch one file, which the install
// or uninstall reports and goes on without: the file holds something
// git-mem cannot edit without risking the user's text (a begin marker
// without its end).
type LeftAloneError struct{ Why string }

func (e *LeftAloneError) Error() string { return e.Why }

// resolveLink returns the file a config path stands for: the path itself,
// or, for a symlink, the file it leads to (link true). A symlink to a
// missing file is an error: writing through it would create a file
// somewhere the user may not expect.
func resolveLink(path string) (target string, link bool, err error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return path, false, nil
	}
	target, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", true, fmt.Errorf("%w: %s is a symlink to a file that does not exist (%v); create that file or remove the link, then run again", memerr.ErrInvalid, path, err)
	}
	return target, true, nil
}

// fileMode is the permission bits of an existing file, else 0644: an edit
// keeps a private config private.
func fileMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// CodexTrustNote tells how to trust the hooks Codex skips until reviewed.
func CodexTrustNote(hooksPath string) string {
	return "Codex runs only hooks you trusted: start codex in this repository and approve git-mem's hooks with /hooks " +
		"(they are listed from " + hooksPath + "), or run headless with: codex exec --dangerously-bypass-hook-trust \"PROMPT\""
}

// removeEmptyDir removes an agent config directory of the project left empty.
func removeEmptyDir(dir string, o InstallOptions) {
	if o.User || filepath.Clean(dir) == filepath.Clean(o.Root) {
		return
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
		os.Remove(dir)
	}
}

func writeFileAtomic(path string, data []byte) error {
	return lockfile.WriteAtomic(path, data, 0o644)
}

// jsonEdit applies fn to a JSON config file's root object and changes in
// the file only what fn changed (see jsonedit.go); comments, trailing commas
// and every other byte stay. A new file is written with two-space
// indentation. On removal, a file left with nothing of its own (an empty
// object, or Cursor's bare version key) gives nil. kept holds the key paths
// of the user's empty objects an install filled: install adds to it,
// uninstall puts them back empty.
// An install's kept paths also record who wrote the MCP server entry:
// ourServers that an install added it, userServers (with each entry's name
// and JSON, NUL-separated) that it was in the file before any install (a
// server the user set up by hand), which uninstall then gives back as it
// was instead of removing it.
const (
	ourServers  = "+our-servers"
	userServers = "+user-servers"
)

// noteUserServers records, on the first install into a file, git-mem's
// entries already in the servers object under key: the user's own.
func noteUserServers(root *jobj, key string, isOwn func(string, any) bool, kept *[]string) {
	if keptHas(*kept, ourServers) || keptHas(*kept, userServers) {
		return
	}
	servers, _ := root.vals[key].(*jobj)
	var entry strings.Builder
	if servers != nil {
		for _, k := range servers.keys {
			if isOwn(k, servers.vals[k]) {
				entry.WriteString("\x00" + k + "\x00" + canonical(servers.vals[k]))
			}
		}
	}
	if entry.Len() == 0 {
		*kept = append(*kept, ourServers)
		return
	}
	*kept = append(*kept, userServers+entry.String())
}

// noteUserTOMLServers is noteUserServers for Codex's config.toml: the
// entries are left in place on uninstall.
func noteUserTOMLServers(d *tomlDoc, kept *[]string) {
	if keptHas(*kept, ourServers) || keptHas(*kept, userServers) {
		return
	}
	var entry strings.Builder
	for _, name := range d.ownServers() {
		for _, t := range d.tables {
			if slices.Equal(t.key, []string{"mcp_servers", name}) && !t.array {
				entry.WriteString("\x00" + name + "\x00" + string(d.data[t.start:t.end]))
			}
		}
	}
	if entry.Len() == 0 {
		*kept = append(*kept, ourServers)
		return
	}
	*kept = append(*kept, userServers+entry.String())
}

// restoreUserTOMLServers puts back the text of the user's own server
// tables that noteUserTOMLServers recorded, in place of what they became.
func restoreUserTOMLServers(data []byte, kept []string) []byte {
	for _, e := range kept {
		rest, ok := strings.CutPrefix(e, userServers+"\x00")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "\x00")
		for i := 0; i+1 < len(parts); i += 2 {
			d, err := parseTOML(data)
			if err != nil {
				return data
			}
			for _, t := range d.tables {
				if slices.Equal(t.key, []string{"mcp_servers", parts[i]}) && !t.array {
					data = splice(data, t.start, t.end, parts[i+1])
					break
				}
			}
		}
	}
	return data
}

// restoreUserServers puts back the user's own entries noteUserServers
// recorded, as they were.
func restoreUserServers(root *jobj, key string, kept []string) {
	for _, e := range kept {
		rest, ok := strings.CutPrefix(e, userServers+"\x00")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "\x00")
		for i := 0; i+1 < len(parts); i += 2 {
			v, err := parseJSON([]byte(parts[i+1]))
			if err != nil {
				continue
			}
			servers, err := root.obj(key)
			if err != nil {
				continue
			}
			servers.set(parts[i], v)
		}
	}
}

// addedVersion records, among an install's kept paths, that it added the
// "version" key Cursor's hooks.json needs to a file of the user's that had
// none: uninstall takes it out again.
const addedVersion = "+version"

func jsonEdit(fn func(root *jobj) error, flat, removing bool, kept *[]string) func(old []byte, exists bool) ([]byte, error) {
	leftEmpty := func(root *jobj) bool {
		return len(root.keys) == 0 || flat && len(root.keys) == 1 && root.keys[0] == "version"
	}
	return func(old []byte, exists bool) ([]byte, error) {
		if !exists || len(bytes.TrimSpace(old)) == 0 {
			root := newObj()
			if err := fn(root); err != nil {
				return nil, err
			}
			if removing && leftEmpty(root) {
				return nil, nil
			}
			return encodeJSON(root, "  "), nil
		}
		doc, err := parseJSONDoc(old)
		if err != nil {
			return nil, fmt.Errorf("%w: not valid JSON, even allowing comments and trailing commas (%v); fix or move the file, then run again", memerr.ErrInvalid, err)
		}
		before, err := doc.tree()
		if err != nil {
			return nil, err
		}
		t, _ := doc.tree()
		root, ok := t.(*jobj)
		orig, _ := before.(*jobj)
		if !ok || orig == nil {
			return nil, fmt.Errorf("%w: the file is not a JSON object", memerr.ErrInvalid)
		}
		if err := fn(root); err != nil {
			return nil, err
		}
		if removing {
			if flat && keptHas(*kept, addedVersion) {
				root.del("version") // install added it to the user's file
			}
			restoreEmpty(orig, root, *kept)
			if leftEmpty(root) && !keptHas(*kept, "") {
				return nil, nil
			}
		} else {
			if _, had := orig.get("version"); flat && !had && !keptHas(*kept, addedVersion) {
				if _, has := root.get("version"); has {
					*kept = append(*kept, addedVersion)
				}
			}
			for _, p := range filledEmpty(orig, root, "") {
				if !keptHas(*kept, p) {
					*kept = append(*kept, keptEntry(p, emptyInner(doc.ast, p)))
				}
			}
		}
		if err := doc.set(root); err != nil {
			return nil, err
		}
		return doc.bytes(), nil
	}
}

// IsOwnCommand reports whether a hook command line runs git-mem's hook,
// whatever the path of the binary: "git-mem hook …", "/opt/bin/git-mem hook …",
// "git mem hook …", "git-mem-hook <event> …", "/opt/bin/git-mem-hook <event> …".
// A guarded line (sh -c 'command -v … || exit 0; exec …') is judged by the
// line it runs.
func IsOwnCommand(cmd string) bool {
	if line, ok := unguard(cmd); ok {
		cmd = line
	}
	toks := strings.Fields(cmd)
	for i := 0; i+3 < len(toks); i++ {
		// any binary name: "<bin> hook <event> --agent <agent>"
		if toks[i+1] == "hook" && agents.NormalizeEvent(toks[i+2]) != "" && toks[i+3] == "--agent" {
			return true
		}
	}
	for i, t := range toks {
		base := filepath.Base(strings.Trim(t, `"'`))
		switch strings.TrimSuffix(base, ".exe") {
		case "git-mem":
			return i+1 < len(toks) && toks[i+1] == "hook"
		case HookBinaryName:
			return i+1 < len(toks) && agents.NormalizeEvent(toks[i+1]) != ""
		case "git":
			return i+2 < len(toks) && toks[i+1] == "mem" && toks[i+2] == "hook"
		}
	}
	return false
}

func isOwnHandler(v any) bool {
	h, ok := v.(*jobj)
	if !ok {
		return false
	}
	if IsOwnCommand(h.str("command")) {
		return true
	}
	// exec form: {"command": "/path/git-mem", "args": ["hook", …]}
	if args, ok := h.vals["args"].([]any); ok && len(args) > 0 {
		a0, _ := args[0].(string)
		switch strings.TrimSuffix(filepath.Base(h.str("command")), ".exe") {
		case "git-mem":
			return a0 == "hook"
		case HookBinaryName:
			return agents.NormalizeEvent(a0) != ""
		}
	}
	return false
}

func (sp agentSpec) handler(o InstallOptions, e agents.Hook, existing *jobj) *jobj {
	h := existing
	if h == nil {
		h = newObj()
	}
	if !sp.Flat {
		h.set("type", "command")
	}
	h.set("command", o.hookCommand(e.Event))
	h.del("args")
	if sp.Named {
		h.set("name", "git-mem-"+e.Event)
	}
	if e.Timeout > 0 {
		h.set("timeout", e.Timeout)
	}
	return h
}

func (sp agentSpec) addHooks(root *jobj, o InstallOptions) error {
	if sp.Flat {
		if _, ok := root.get("version"); !ok {
			root.set("version", 1)
		}
	}
	hooks, err := root.obj("hooks")
	if err != nil {
		return err
	}
	for _, e := range sp.Hooks {
		var arr []any
		if v, ok := hooks.get(e.Name); ok {
			if arr, ok = v.([]any); !ok {
				return fmt.Errorf("%w: hooks.%s is not a list", memerr.ErrInvalid, e.Name)
			}
		}
		placed := false
		var out []any
		if sp.Flat {
			for _, h := range arr {
				if !isOwnHandler(h) {
					out = append(out, h)
				} else if !placed {
					out = append(out, sp.handler(o, e, h.(*jobj)))
					placed = true
				}
			}
			if !placed {
				out = append(out, sp.handler(o, e, nil))
			}
			hooks.set(e.Name, out)
			continue
		}
		for _, g := range arr {
			grp, hs, ok := groupHooks(g)
			if !ok {
				out = append(out, g)
				continue
			}
			var kept []any
			had := false
			for _, h := range hs {
				if !isOwnHandler(h) {
					kept = append(kept, h)
					continue
				}
				had = true
				if !placed {
					kept = append(kept, sp.handler(o, e, h.(*jobj)))
					placed = true
				}
			}
			if had && len(kept) == 0 {
				continue
			}
			if had && len(kept) == 1 && isOwnHandler(kept[0]) {
				// git-mem's own group: its matcher is ours to set (or drop)
				if e.Matcher != "" {
					grp.set("matcher", e.Matcher)
				} else {
					grp.del("matcher")
				}
			}
			grp.set("hooks", kept)
			out = append(out, grp)
		}
		if !placed {
			grp := newObj()
			if e.Matcher != "" {
				grp.set("matcher", e.Matcher)
			}
			grp.set("hooks", []any{sp.handler(o, e, nil)})
			out = append(out, grp)
		}
		hooks.set(e.Name, out)
	}
	return nil
}

// removeHooks drops git-mem's handlers from every event, then the groups,
// events and hooks object they leave empty.
func (sp agentSpec) removeHooks(root *jobj) {
	v, ok := root.get("hooks")
	hooks, ok2 := v.(*jobj)
	if !ok || !ok2 {
		return
	}
	for _, name := range append([]string(nil), hooks.keys...) {
		arr, ok := hooks.vals[name].([]any)
		if !ok {
			continue
		}
		var out []any
		removed := false
		for _, g := range arr {
			if isOwnHandler(g) {
				removed = true
				continue
			}
			grp, hs, ok := groupHooks(g)
			if !ok || sp.Flat {
				out = append(out, g)
				continue
			}
			var kept []any
			for _, h := range hs {
				if isOwnHandler(h) {
					removed = true
				} else {
					kept = append(kept, h)
				}
			}
			if len(kept) == 0 && len(hs) > 0 {
				continue
			}
			grp.set("hooks", kept)
			out = append(out, grp)
		}
		if removed && len(out) == 0 {
			hooks.del(name)
		} else if removed {
			hooks.set(name, out)
		}
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	}
}

func isOwnServer(name string, v any) bool {
	if name == MCPServerName {
		return true
	}
	s, ok := v.(*jobj)
	return ok && isOwnServerCommand(name, s.str("command"), jsonStrings(s.vals["args"]))
}

// jsonStrings reads a JSON array of strings; other elements read as "".
func jsonStrings(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}

func (sp agentSpec) addMCP(root *jobj, o InstallOptions) error {
	servers, err := root.obj("mcpServers")
	if err != nil {
		return err
	}
	var srv *jobj
	if v, ok := servers.get(MCPServerName); ok {
		srv, _ = v.(*jobj)
	}
	for _, k := range append([]string(nil), servers.keys...) {
		if k != MCPServerName && isOwnServer(k, servers.vals[k]) {
			servers.del(k) // the same server under another name: keep one
		}
	}
	if srv == nil {
		srv = newObj()
	}
	if sp.MCPType {
		srv.set("type", "stdio")
	}
	// a user's arguments after "mcp" and env are theirs: kept
	args, _ := srv.vals["args"].([]any)
	wasOurs := strings.TrimSuffix(filepath.Base(srv.str("command")), ".exe") == "git-mem"
	srv.set("command", binaryOr(o.Binary))
	if len(args) == 0 || args[0] != "mcp" || !wasOurs {
		srv.set("args", []any{"mcp"})
	}
	if sp.MCPAlwaysLoad {
		srv.set("alwaysLoadTools", true)
	}
	servers.set(MCPServerName, srv)
	return nil
}

func removeMCP(root *jobj) { removeServers(root, "mcpServers", isOwnServer) }

// removeServers drops git-mem's entries from the server table under key,
// and the table itself when that leaves it empty.
func removeServers(root *jobj, key string, isOwn func(name string, v any) bool) {
	v, ok := root.get(key)
	servers, ok2 := v.(*jobj)
	if !ok || !ok2 {
		return
	}
	removed := false
	for _, k := range append([]string(nil), servers.keys...) {
		if isOwn(k, servers.vals[k]) {
			servers.del(k)
			removed = true
		}
	}
	if removed && len(servers.keys) == 0 {
		root.del(key)
	}
}

// groupHooks returns a matcher group and its handler list.
func groupHooks(g any) (*jobj, []any, bool) {
	grp, ok := g.(*jobj)
	if !ok {
		return nil, nil, false
	}
	hs, ok := grp.vals["hooks"].([]any)
	return grp, hs, ok
}

// Installed is what git-mem finds of itself in an agent's config files.
type Installed struct {
	Agent, Scope string
	// Hooks and MCP report git-mem's hook handlers and MCP server found;
	// Commands are the command lines (and MCP command) they run, without
	// the guard that skips a missing binary.
	Hooks, MCP bool
	Events     []string
	Commands   []string
	HooksFile  string
	MCPFile    string
}

// Inspect reports git-mem's entries in an agent's config files for the
// options' scope; a file that cannot be read counts as holding none.
func Inspect(o InstallOptions) (*Installed, error) {
	sp, err := spec(o)
	if err != nil {
		return nil, err
	}
	o.Agent = agents.Normalize(o.Agent)
	in := &Installed{Agent: o.Agent, Scope: "project", HooksFile: sp.HooksFile(o.scope()), MCPFile: sp.MCPFile(o.scope())}
	if o.User {
		in.Scope = "user"
	}
	if sp.OpenCode {
		inspectOpenCodePlugin(in.HooksFile, in)
		inspectOpenCodeMCP(in.MCPFile, in)
		return in, nil
	}
	if root := readJSONObj(in.HooksFile); root != nil {
		if hv, ok := root.get("hooks"); ok {
			if hooks, ok := hv.(*jobj); ok {
				for _, name := range hooks.keys {
					arr, _ := hooks.vals[name].([]any)
					for _, g := range arr {
						hs := []any{g}
						if _, ghs, ok := groupHooks(g); ok {
							hs = ghs
						}
						for _, h := range hs {
							if isOwnHandler(h) {
								in.Hooks = true
								in.Events = append(in.Events, name)
								in.Commands = append(in.Commands, HookLine(h.(*jobj).str("command")))
							}
						}
					}
				}
			}
		}
	}
	if sp.TOML {
		if data, err := os.ReadFile(in.MCPFile); err == nil {
			cmds := tomlServers(data)
			in.MCP = len(cmds) > 0
			in.Commands = append(in.Commands, cmds...)
		}
	} else if root := readJSONObj(in.MCPFile); root != nil {
		if sv, ok := root.get("mcpServers"); ok {
			if servers, ok := sv.(*jobj); ok {
				for _, k := range servers.keys {
					if isOwnServer(k, servers.vals[k]) {
						in.MCP = true
						if s, ok := servers.vals[k].(*jobj); ok {
							in.Commands = append(in.Commands, s.str("command"))
						}
					}
				}
			}
		}
	}
	return in, nil
}

func readJSONObj(path string) *jobj {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	doc, err := parseJSONDoc(data)
	if err != nil {
		return nil
	}
	v, err := doc.tree()
	if err != nil {
		return nil
	}
	o, _ := v.(*jobj)
	return o
}

// CommandBinary is the program a hook or MCP command line runs (its first
// word, unquoted).
func CommandBinary(cmd string) string {
	if line, ok := unguard(cmd); ok {
		cmd = line
	}
	cmd = strings.TrimSpace(cmd)
	if strings.HasPrefix(cmd, "'") {
		if end := strings.Index(cmd[1:], "'"); end >= 0 {
			return cmd[1 : end+1]
		}
	}
	if strings.HasPrefix(cmd, `"`) {
		if end := strings.Index(cmd[1:], `"`); end >= 0 {
			return cmd[1 : end+1]
		}
	}
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// sharedInstructions reports whether another agent still installed in the
// same scope reads the instruction file (Codex and Cursor share AGENTS.md),
// so uninstalling one keeps the block.
func sharedInstructions(o InstallOptions, path string) bool {
	for _, a := range agents.Names {
		if a == agents.Normalize(o.Agent) {
			continue
		}
		o2 := o
		o2.Agent = a
		if !sameFile(instructionsFile(a, o2), path) {
			continue
		}
		if in, err := Inspect(o2); err == nil && (in.Hooks || in.MCP) {
			return true
		}
	}
	return false
}

// sameFile reports two paths of one file: equal, or leading to it through
// symlinks (CLAUDE.md -> AGENTS.md).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func instructionsFile(agent string, o InstallOptions) string {
	cfg, _ := agents.ConfigOf(agent)
	return cfg.InstructionsFile(o.scope())
}
