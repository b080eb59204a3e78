package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

// checkWriterSecrets refuses a write whose writer would record a credential:
// the agent and session names go into every document and commit the command
// writes, as the text does, so they pass the same rules (an --agent pasted
// from the wrong clipboard, a session variable holding a token).
func checkWriterSecrets(c *cobra.Command, env *Env) error {
	if !writeVerbs[c.Name()] && c.Name() != "import" {
		return nil
	}
	values := []struct{ name, v string }{
		{"GIT_MEM_AGENT", env.Getenv("GIT_MEM_AGENT")},
		{"GIT_MEM_SESSION", env.Getenv("GIT_MEM_SESSION")},
		{"CLAUDE_CODE_SESSION_ID", env.Getenv("CLAUDE_CODE_SESSION_ID")},
	}
	if f := c.Flags().Lookup("agent"); f != nil && f.Changed {
		values = append([]struct{ name, v string }{{"--agent", f.Value.String()}}, values...)
	}
	for _, x := range values {
		if x.v == "" {
			continue
		}
		if err := gitstore.CheckSecrets(x.v); err != nil {
			return fmt.Errorf("%s, which names the writer of every change: %w", x.name, err)
		}
	}
	return nil
}
