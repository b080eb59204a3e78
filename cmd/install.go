package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/install"
	"github.com/git-mem/git-mem/internal/health"
	"github.com/git-mem/git-mem/memerr"
)

type installOptions struct {
	agent  string
	user   bool
	binary string
	json   bool
	// man installs the man pages (into manDir, when given).
	man    bool
	manDir string
}

func newInstallCmd(env *Env) *cobra.Command {
	o := &installOptions{}
	c := &cobra.Command{
		Use:   "install <claude|codex|cursor|gemini|qwen|copilot|opencode> [--user] | install --man [--man-dir DIR]",
		Short: "Register git-mem's hooks, MCP server and instructions with a coding agent",
		Long: `Register git-mem with a coding agent: its hooks (session start, prompt, stop,
session end), the MCP server (git-mem mcp), and a marked instruction block in
CLAUDE.md, AGENTS.md, GEMINI.md, QWEN.md or copilot-instructions.md (OpenCode,
which has no command hooks, gets a small plugin that runs them). Entries are merged into the existing config
files: other tools' entries and the files' indentation are kept, and running
install again updates git-mem's own entries in place, wherever the binary was.

  claude  .claude/settings.json, .mcp.json, CLAUDE.md
          (--user: ~/.claude/settings.json, ~/.claude.json, ~/.claude/CLAUDE.md)
  codex   .codex/hooks.json, .codex/config.toml, AGENTS.md
          (--user: $CODEX_HOME or ~/.codex: hooks.json, config.toml, AGENTS.md)
  gemini  .gemini/settings.json, GEMINI.md (--user: ~/.gemini/…)
  cursor  .cursor/hooks.json, .cursor/mcp.json, AGENTS.md (--user: ~/.cursor/…)
  qwen    .qwen/settings.json, QWEN.md (--user: ~/.qwen/…)
  copilot .github/hooks/git-mem.json, .github/mcp.json, .github/copilot-instructions.md
          (--user: ~/.copilot/hooks/git-mem.json, mcp-config.json, copilot-instructions.md)
  opencode .opencode/plugins/git-mem.js, opencode.json, AGENTS.md
          (--user: ~/.config/opencode/…)

Codex runs only hooks you trusted; install says how to trust them.
Undo with git mem uninstall.

--man installs git-mem's man pages, so that git mem --help (which git turns
into man git-mem) works: beside the git-mem that git runs (../share/man of its
directory, which man finds through PATH), else in ~/.local/share/man.`,
		Example: `  git mem install claude
  git mem install codex --user
  git mem install --man`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.manDir != "" {
				o.man = true
			}
			if len(args) == 0 {
				if !o.man {
					return usagef("give the agent to install for (%s), or --man for the man pages", strings.Join(agents.Names, ", "))
				}
				return runInstallMan(cmd.Context(), env, o.manDir)
			}
			if o.man {
				if err := runInstallMan(cmd.Context(), env, o.manDir); err != nil {
					return err
				}
			}
			o.agent = args[0]
			if agents.Normalize(o.agent) == "" {
				return usagef("unknown agent %q; use one of %s", o.agent, strings.Join(agents.Names, ", "))
			}
			return runInstall(cmd.Context(), env, o, true)
		},
	}
	installFlags(c, o)
	c.Flags().BoolVar(&o.man, "man", false, "install the man pages (git mem --help)")
	c.Flags().StringVar(&o.manDir, "man-dir", "", "install the man pages into this man `directory` (its man1)")
	return c
}

func installFlags(c *cobra.Command, o *installOptions) {
	f := c.Flags()
	f.BoolVar(&o.user, "user", false, "use the agent's user config (every project) instead of this repository's")
	f.StringVar(&o.binary, "binary", "", "the `command` the agent runs (default: git-mem when on PATH, else this binary's path)")
	f.BoolVar(&o.json, "json", false, "print what changed as JSON")
}

// installTarget fills the paths install needs from the environment.
func installTarget(env *Env, o *installOptions) (install.InstallOptions, error) {
	io := install.InstallOptions{Agent: o.agent, User: o.user, Home: env.Getenv("HOME"), CodexHome: env.Getenv("CODEX_HOME"), Binary: o.binary}
	if io.Home == "" {
		io.Home, _ = os.UserHomeDir()
	}
	// where install remembers the user's empty objects it filled, so that
	// uninstall gives them back
	if st := env.Getenv("XDG_STATE_HOME"); st != "" {
		io.StateFile = filepath.Join(st, "git-mem", "install.json")
	} else if io.Home != "" {
		io.StateFile = filepath.Join(io.Home, ".local", "state", "git-mem", "install.json")
	}
	if !o.user {
		repo, err := gitstore.Open(env.Dir)
		if errors.Is(err, memerr.ErrNoRepo) {
			return io, fmt.Errorf("%w: %s is not inside a git repository; run it in a checkout, or pass --user to set the agent up for every repository", memerr.ErrNoRepo, env.Dir)
		}
		if err != nil {
			return io, err
		}
		if repo.WorkTree == "" {
			return io, fmt.Errorf("%w: %s has no worktree; install in a checkout, or pass --user", memerr.ErrNoRepo, repo.GitDir)
		}
		io.Root = repo.WorkTree
	}
	return io, nil
}

// defaultBinary is the command written into agents' configs: git-mem when
// that is on PATH, else the absolute path of this executable.
func defaultBinary() string {
	if _, err := exec.LookPath("git-mem"); err == nil {
		return "git-mem"
	}
	if exe, err := os.Executable(); err == nil {
		if abs, err := filepath.EvalSymlinks(exe); err == nil {
			return abs
		}
		return exe
	}
	return "git-mem"
}

// hookBinary is the git-mem-hook command the hooks are registered with:
// that binary when it sits next to git-mem (the one named by binary when it
// is a path, else the running executable), by name when PATH finds that
// very file, else by path; "" (hooks run "git-mem hook") when there is none.
func hookBinary(binary string) string {
	dir := executableDir()
	if filepath.IsAbs(binary) {
		dir = filepath.Dir(binary)
	}
	full := companionIn(dir, install.HookBinaryName)
	if full == "" {
		return ""
	}
	if !filepath.IsAbs(binary) {
		if p, err := exec.LookPath(install.HookBinaryName); err == nil && sameFile(p, full) {
			return install.HookBinaryName
		}
	}
	return full
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func runInstall(ctx context.Context, env *Env, o *installOptions, adding bool) error {
	target, err := installTarget(env, o)
	if err != nil {
		return err
	}
	if adding && target.Binary == "" {
		target.Binary = defaultBinary()
	}
	if adding {
		target.HookBinary = hookBinary(target.Binary)
	}
	if adding && agents.Normalize(o.agent) == agents.Codex {
		// Codex runs only trusted hooks: ask codex for their hashes and record them
		if bin, err := exec.LookPath("codex"); err == nil {
			target.CodexBin, target.Env = bin, os.Environ()
		}
	}
	var rep *install.Report
	if adding {
		rep, err = install.Install(ctx, target)
	} else {
		rep, err = install.Uninstall(ctx, target)
	}
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, rep)
	}
	verb := "installed for"
	if !adding {
		verb = "uninstalled from"
	}
	fmt.Fprintf(env.Out, "git-mem %s %s (%s scope)\n", verb, rep.Agent, rep.Scope)
	if len(rep.Files) == 0 {
		fmt.Fprintln(env.Out, "  nothing to do")
	}
	for _, f := range rep.Files {
		fmt.Fprintf(env.Out, "  %-9s %s (%s)\n", f.Action, f.Path, f.What)
	}
	if adding && !filepath.IsAbs(target.Binary) {
		if _, err := exec.LookPath(target.Binary); err != nil {
			fmt.Fprintf(env.Err, "warning: %s is not on PATH; the agent will not find it: put git-mem on PATH, or re-run with --binary /path/to/git-mem\n", target.Binary)
		}
	}
	if adding {
		if _, err := findCompanion(mcpBinaryName, env.Getenv); err != nil {
			fmt.Fprintf(env.Err, "warning: %v; the agent's MCP server (git-mem mcp) will not start until it is\n", errNoMCPBinary)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(env.Out, "note: "+n)
	}
	return nil
}

// checkInstalled is git mem doctor's look at the agents: git-mem on PATH;
// for each agent it is installed for, hooks and MCP server both registered
// and pointing at an existing binary; recent hook errors.
func checkInstalled(ctx context.Context, env *Env, set *gitstore.Set, _ *doctorOptions) []health.Finding {
	var out []health.Finding
	if p, err := exec.LookPath("git-mem"); err == nil {
		out = append(out, health.Finding{Check: "binary", Status: health.OK, Message: "git-mem is on PATH at " + p})
	} else {
		out = append(out, health.Finding{Check: "binary", Status: health.Warn,
			Message: "git-mem is not on PATH: agents' hooks and MCP entries that say git-mem will not start",
			Fix:     "install git-mem into a directory on PATH: " + installHint("git-mem")})
	}
	mcpRegistered := false
	for _, user := range []bool{false, true} {
		o := &installOptions{user: user}
		for _, agent := range agents.Names {
			o.agent = agent
			target, err := installTarget(env, o)
			if err != nil {
				continue
			}
			in, err := install.Inspect(target)
			if err != nil || !in.Hooks && !in.MCP {
				continue
			}
			scopeFlag := ""
			if user {
				scopeFlag = " --user"
			}
			f := health.Finding{Check: "agent " + agent + " (" + in.Scope + ")", Status: health.OK,
				Message: fmt.Sprintf("hooks (%s) and MCP server registered", strings.Join(in.Events, ", "))}
			var missing []string
			if !in.Hooks {
				missing = append(missing, "hooks in "+in.HooksFile)
			}
			if !in.MCP {
				missing = append(missing, "MCP server in "+in.MCPFile)
			}
			if len(missing) > 0 {
				f.Status, f.Message = health.Warn, "missing "+strings.Join(missing, " and ")
				f.Fix = "git mem install " + agent + scopeFlag
			}
			for _, c := range in.Commands {
				bin := install.CommandBinary(c)
				if _, err := exec.LookPath(bin); err != nil {
					f.Status = health.Fail
					f.Message = fmt.Sprintf("registered command %q: %s does not exist or is not on PATH", c, bin)
					f.Fix = "git mem install " + agent + scopeFlag + " (re-run after installing git-mem, or pass --binary PATH)"
					if strings.TrimSuffix(filepath.Base(bin), ".exe") == install.HookBinaryName {
						// a config committed by a teammate: the hooks skip themselves here
						f.Message += "; the hooks do nothing on this machine until it is installed"
						f.Fix = "install the hook binary on PATH: " + installHint(install.HookBinaryName)
					}
					break
				}
			}
			out = append(out, f)
			mcpRegistered = mcpRegistered || in.MCP
		}
	}
	if mcpRegistered {
		out = append(out, mcpBinaryState(env))
	}
	if set != nil && set.Repo != nil && set.Repo.CommonDir != "" {
		out = append(out, recentHookErrors(set.Repo.Mem().HooksLog(), env.Now()))
		out = append(out, indexState(set))
	}
	return out
}

// indexState says whether the recall caches exist: the snapshot git-mem
// and the hooks read, and the search index of the MCP server (git-mem-mcp,
// which builds it in the background when it starts). Both are brought up to
// date by every read, but building one from nothing takes a while, which a
// hook's deadline may not allow on a large store.
func indexState(set *gitstore.Set) health.Finding {
	f := health.Finding{Check: "index", Status: health.OK}
	snap := index.SnapshotPath(set)
	st, err := os.Stat(snap)
	if err != nil {
		f.Status, f.Message = health.Info, "the recall snapshot is not built yet; the first recall or hook builds it"
		f.Fix = "git mem reindex (builds it now, so the first session's hooks stay fast)"
		return f
	}
	f.Message = fmt.Sprintf("recall snapshot at %s (changed %s); every read brings it up to date with the memory refs", snap, st.ModTime().UTC().Format(time.RFC3339))
	dir := index.Dir(set)
	if st, err := os.Stat(dir); err == nil {
		f.Message += fmt.Sprintf("; the MCP server's search index at %s (changed %s)", dir, st.ModTime().UTC().Format(time.RFC3339))
	} else {
		f.Message += "; the MCP server builds its search index when it next starts"
	}
	return f
}

// mcpBinaryState says whether git mem mcp finds the MCP server's binary,
// when an agent's config runs the MCP server.
func mcpBinaryState(env *Env) health.Finding {
	f := health.Finding{Check: "mcp binary", Status: health.OK}
	path, err := findCompanion(mcpBinaryName, env.Getenv)
	if err != nil {
		f.Status = health.Fail
		f.Message = mcpBinaryName + " is neither beside git-mem nor on PATH: git mem mcp, which the agents' MCP entries run, fails"
		f.Fix = installHint(mcpBinaryName)
		return f
	}
	f.Message = "git mem mcp runs " + path
	return f
}

// recentHookErrors reports the hook errors logged in the last day.
func recentHookErrors(path string, now time.Time) health.Finding {
	f := health.Finding{Check: "hook errors", Status: health.OK, Message: "none logged in the last 24 hours"}
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return f
	}
	if err != nil {
		f.Status, f.Message = health.Warn, err.Error()
		return f
	}
	defer file.Close()
	var recent []string
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		ts, _, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if t, err := time.Parse(time.RFC3339, ts); err == nil && now.Sub(t) < 24*time.Hour {
			recent = append(recent, line)
		}
	}
	if len(recent) == 0 {
		return f
	}
	f.Status = health.Warn
	f.Message = fmt.Sprintf("%d hook error(s) in the last 24 hours; the last: %s", len(recent), recent[len(recent)-1])
	f.Fix = "read " + path + " (hooks never block the agent; they log here instead)"
	return f
}
