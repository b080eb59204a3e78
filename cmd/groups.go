package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandGroups are the headings of git mem help, in the order shown: what
// users do, not how the code is split.
var commandGroups = []*cobra.Group{
	{ID: "memory", Title: "Memory:"},
	{ID: "sessions", Title: "Sessions (what agents start with and leave behind):"},
	{ID: "sharing", Title: "Sharing with your team:"},
	{ID: "setup", Title: "Setup:"},
	{ID: "maintenance", Title: "Maintenance:"},
}

// commandGroup places each visible command under a heading. One table rather
// than a field in each verb's file, so the headings can be read and changed
// in one place; TestHelpGroupsEveryCommand fails when a new visible command
// has none.
var commandGroup = map[string]string{
	"add": "memory", "list": "memory", "recall": "memory", "show": "memory",
	"history": "memory", "revise": "memory", "confirm": "memory", "dispute": "memory",
	"forget": "memory", "log": "memory", "stats": "memory", "ui": "memory",

	"boot": "sessions", "handoff": "sessions", "preview": "sessions", "hook": "sessions",

	"push": "sharing", "pull": "sharing", "sync": "sharing", "share": "sharing",
	"import": "sharing", "export": "sharing", "link": "sharing", "unlink": "sharing", "verify": "sharing",
	"propose": "sharing", "review": "sharing",

	"install": "setup", "uninstall": "setup", "mcp": "setup", "completion": "setup",
	"demo": "setup", "help": "setup",

	"doctor": "maintenance", "reindex": "maintenance", "version": "maintenance",
}

// groupCommands adds the headings and files each command under its own.
func groupCommands(root *cobra.Command) {
	root.AddGroup(commandGroups...)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	for _, c := range root.Commands() {
		if g, ok := commandGroup[c.Name()]; ok && !c.Hidden {
			c.GroupID = g
		}
	}
}

// helpHint is the help command for the command line args, which failed: the
// command's own help when args name one. It never says --help: git turns
// "git mem --help" into "man git-mem", which needs the man pages installed
// (git mem install --man), while git mem help always works.
func helpHint(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil || c == root {
		return "git mem help"
	}
	return "git mem help " + strings.TrimPrefix(c.CommandPath(), root.CommandPath()+" ")
}
