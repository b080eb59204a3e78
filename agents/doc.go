// Package agents is the one table of the coding agents git-mem works with:
// their names, how a process recognises the agent it runs under (from a hook
// payload or from the environment), the hook payload's shape, the hook events
// and their names in each agent, and where each agent keeps its hook, MCP
// and instruction files. The hooks, the MCP server, the installer and the
// CLI ask this package; none of them keeps its own list.
//
// The agents' own contracts (payload fields, accepted output, config files)
// are in docs/agents.md.
package agents
