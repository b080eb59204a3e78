package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/surface"
)

type mcpOptions struct {
	agent string
}

func newMCPCmd(env *Env) *cobra.Command {
	o := &mcpOptions{}
	c := &cobra.Command{
		Use:   "mcp [--agent NAME]",
		Short: "Serve the memory to any MCP client over stdio",
		Long: `Run git-mem's MCP server on stdin/stdout (newline-delimited JSON-RPC), for
Claude Code, Codex, Cursor, Gemini CLI, Qwen Code, Copilot CLI, OpenCode or any
MCP client.

It serves the memory of the repository of the client's first workspace root
inside a git repository, else of the directory it was started in (or -C);
outside any repository, your personal store. No tool can name another store.

Writes are recorded as made by the client's name (clientInfo.name, normalized:
claude-code, codex, cursor, gemini, qwen, copilot, opencode, ...) unless --agent
or GIT_MEM_AGENT says otherwise. Diagnostics go to stderr when GIT_MEM_DEBUG is set.

The server is its own binary, git-mem-mcp, installed beside git-mem (it alone
links the search index and the MCP SDK, so that every other command starts
fast): git mem mcp runs the git-mem-mcp found beside git-mem, else on PATH.
Without it, it exits with code 1 and says how to install it.`,
		Example: `  git mem mcp
  claude mcp add -s project gitmem -- git-mem mcp
  codex mcp add gitmem -- git-mem mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(o.agent) == "" && cmd.Flags().Changed("agent") {
				return usagef("--agent needs a name, e.g. --agent claude-code")
			}
			return runMCP(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "record every write as made by this `agent` (default: the client's name)")
	return c
}

// MCPOptions are what the MCP server is started with, from the mcp verb's
// flags and the environment.
type MCPOptions struct {
	// Dir is the directory it was started in (or -C).
	Dir string
	// Agent names the writer of every change (--agent, GIT_MEM_AGENT); ""
	// for the client's name.
	Agent string
	// Session is GIT_MEM_SESSION.
	Session string
	// Version is git-mem's version, reported to clients.
	Version string
	Now     func() time.Time
	// GitDates are GIT_AUTHOR_DATE and GIT_COMMITTER_DATE, which the times
	// of the server's commits follow.
	GitDates surface.GitDates
	// Logger receives diagnostics: stderr with GIT_MEM_DEBUG, else nothing.
	Logger *slog.Logger
}

// MCPServer serves MCP on in and out until in closes or ctx ends.
type MCPServer func(ctx context.Context, o MCPOptions, in io.Reader, out io.Writer) error

var mcpServer struct {
	sync.Mutex
	serve MCPServer
}

// UseMCPServer wires in the MCP server the mcp verb runs in this process
// (nil: none, and the verb runs git-mem-mcp instead). Only git-mem-mcp's
// main (and tests) call it, so that git-mem links neither the MCP SDK nor
// the search index.
func UseMCPServer(serve MCPServer) {
	mcpServer.Lock()
	mcpServer.serve = serve
	mcpServer.Unlock()
}

func currentMCPServer() MCPServer {
	mcpServer.Lock()
	defer mcpServer.Unlock()
	return mcpServer.serve
}

// MCPMain is the main of git-mem-mcp: "git-mem-mcp [flags]" is
// "git mem mcp [flags]" served by serve, and returns the exit code.
func MCPMain(serve MCPServer) int {
	UseMCPServer(serve)
	return mainWith(append([]string{"mcp"}, os.Args[1:]...))
}

func runMCP(ctx context.Context, env *Env, o *mcpOptions) error {
	serve := currentMCPServer()
	if serve == nil {
		return runMCPBinary(ctx, env, o)
	}
	agent := o.agent
	if agent == "" {
		agent = env.Getenv("GIT_MEM_AGENT")
	}
	logger := slog.New(slog.DiscardHandler)
	if env.Getenv("GIT_MEM_DEBUG") != "" {
		logger = slog.New(slog.NewTextHandler(env.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// the search index is brought up to date (built, after a reindex) in
	// the background; recalls meanwhile find it busy and read the snapshot
	ctx, cancel := context.WithCancel(ctx)
	synced := make(chan struct{})
	go func() {
		defer close(synced)
		syncMCPIndex(ctx, env.Dir, logger)
	}()
	defer func() { cancel(); <-synced }()
	return serve(ctx, MCPOptions{
		Dir:      env.Dir,
		Agent:    agent,
		Session:  env.Getenv("GIT_MEM_SESSION"),
		Version:  mcpVersion(),
		Now:      env.Now,
		GitDates: surface.GitDatesFrom(env.Getenv),
		Logger:   logger,
	}, env.In, env.Out)
}

// syncMCPIndex brings the search index of the stores seen from dir up to
// date: those of the repository the server was started in, which is the
// one its client's workspace names in the usual case.
func syncMCPIndex(ctx context.Context, dir string, logger *slog.Logger) {
	set, err := gitstore.OpenSet(dir)
	if err != nil {
		logger.Debug("search index not synced at start", "dir", dir, "err", err)
		return
	}
	surface.AttachLinks(set, surface.Clock{})
	start := time.Now()
	rebuilt, err := index.SyncIndex(ctx, set, nil)
	if err != nil {
		logger.Debug("search index not synced at start", "dir", index.Dir(set), "err", err)
		return
	}
	logger.Debug("search index synced at start", "dir", index.Dir(set), "rebuilt", rebuilt, "took", time.Since(start))
}

// errNoMCPBinary is git mem mcp's error when git-mem-mcp cannot be found.
var errNoMCPBinary = errors.New("the MCP server's binary, " + mcpBinaryName + ", is neither beside git-mem nor on PATH: " +
	"install it into the directory git-mem is in: " + installHint(mcpBinaryName))

// runMCPBinary runs git-mem-mcp with the verb's options: the process
// becomes it where the system allows (the client's pipes, signals and exit
// code are then its own), else it runs as a child on the same streams and
// its exit code is git-mem's.
func runMCPBinary(ctx context.Context, env *Env, o *mcpOptions) error {
	path, err := findCompanion(mcpBinaryName, env.Getenv)
	if err != nil {
		return errNoMCPBinary
	}
	args := []string{"-C", env.Dir}
	if o.agent != "" {
		args = append(args, "--agent", o.agent)
	}
	if env.process && canExec {
		// returns only when the system refused
		return fmt.Errorf("starting %s: %w", path, execProcess(path, args))
	}
	c := exec.CommandContext(ctx, path, args...)
	c.Stdin, c.Stdout, c.Stderr = env.In, env.Out, env.Err
	err = c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return exitStatus(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", path, err)
	}
	return nil
}

// exitStatus is the exit code of a program git-mem ran in its place, which
// said what it had to say itself.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// mcpVersion is the module version the binary was built from ("dev" for a
// source build), reported to MCP clients.
func mcpVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
