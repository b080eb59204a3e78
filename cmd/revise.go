package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type reviseOptions struct {
	id, text, agent string
	allowSecret     bool
}

func init() { register(newReviseCmd) }

func newReviseCmd(env *Env) *cobra.Command {
	o := &reviseOptions{}
	c := &cobra.Command{
		Use:   "revise ID -- TEXT",
		Short: "Replace the text of a memory (history keeps the old text)",
		Long: `Replace the text of a memory, e.g. to fix a typo or add precision. When the
fact itself changed, save the new fact with git mem add --supersedes ID instead,
so that what was true before stays answerable.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("give the id and the new text: git mem revise ID -- TEXT")
			}
			o.id, o.text = args[0], textArg(args[1:])
			return runRevise(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	c.Flags().BoolVar(&o.allowSecret, "allow-secret", false, "store the text even if it looks like a credential (a harmless example)")
	return c
}

func runRevise(ctx context.Context, env *Env, o *reviseOptions) error {
	set, store, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	var opts []gitstore.WriteOption
	if o.allowSecret {
		opts = append(opts, gitstore.AllowSecret())
	}
	if _, err := store.Revise(ctx, env.writer(set, o.agent), m.ID, o.text, opts...); err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "revised %s; git mem history %s shows every version\n", o.id, o.id)
	return nil
}
