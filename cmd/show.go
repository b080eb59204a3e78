package cmd

import (
	"context"

	"github.com/spf13/cobra"
)

type showOptions struct {
	id   string
	json bool
}

func newShowCmd(env *Env) *cobra.Command {
	o := &showOptions{}
	c := &cobra.Command{
		Use:   "show [--json] ID",
		Short: "Show one memory by id or unique prefix",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runShow(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runShow(_ context.Context, env *Env, o *showOptions) error {
	set, _, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	short := displayID(set, m.ID)
	if o.json {
		return writeJSON(env.Out, toJSON(m, short, env.Now()))
	}
	writeMemory(env.Out, set, m, short, env.Now())
	return nil
}

// exactlyOneID is the argument check of commands that take one memory id.
func exactlyOneID(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{errMissingID}
	}
	return nil
}
