package cmd

import (
	"context"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/mcp"
)

type mcpOptions struct {
	agent string
}

func init() { register(newMCPCmd) }

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
or GIT_MEM_AGENT says otherwise. Diagnostics go to stderr when GIT_MEM_DEBUG is set.`,
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

func runMCP(ctx context.Context, env *Env, o *mcpOptions) error {
	agent := o.agent
	if agent == "" {
		agent = env.Getenv("GIT_MEM_AGENT")
	}
	logger := slog.New(slog.DiscardHandler)
	if env.Getenv("GIT_MEM_DEBUG") != "" {
		logger = slog.New(slog.NewTextHandler(env.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv := mcp.New(mcp.Options{
		Dir:     env.Dir,
		Agent:   agent,
		Session: env.Getenv("GIT_MEM_SESSION"),
		Version: mcpVersion(),
		Now:     env.Now,
		Logger:  logger,
	})
	return srv.Run(ctx, env.In, env.Out)
}

// mcpVersion is the module version the binary was built from ("dev" for a
// source build), reported to MCP clients.
func mcpVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
