package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/agents"
)

func newUninstallCmd(env *Env) *cobra.Command {
	o := &installOptions{}
	c := &cobra.Command{
		Use:   "uninstall <claude|codex|cursor|gemini|qwen|copilot|opencode> [--user]",
		Short: "Remove git-mem's hooks, MCP server and instructions from a coding agent",
		Long: `Remove what git mem install wrote for an agent: git-mem's own hook handlers,
its MCP server entry and its marked instruction block. Other tools' entries
stay as they are; a file left with nothing else in it is removed. The memory
itself (refs/memory/*) is not touched.`,
		Example: `  git mem uninstall claude
  git mem uninstall codex --user`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.agent = args[0]
			if agents.Normalize(o.agent) == "" {
				return usagef("unknown agent %q; use one of %s", o.agent, strings.Join(agents.Names, ", "))
			}
			return runInstall(cmd.Context(), env, o, false)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.user, "user", false, "use the agent's user config instead of this repository's")
	f.BoolVar(&o.json, "json", false, "print what changed as JSON")
	return c
}
