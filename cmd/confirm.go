package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type confirmOptions struct {
	id, agent, ifVersion string
}

func newConfirmCmd(env *Env) *cobra.Command {
	o := &confirmOptions{}
	c := &cobra.Command{
		Use:   "confirm ID",
		Short: "Record that a memory was checked and is true (raises its trust)",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runConfirm(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	c.Flags().StringVar(&o.ifVersion, "if-version", "", "change it only while it is at this `version` (git mem show gives it)")
	return c
}

func runConfirm(ctx context.Context, env *Env, o *confirmOptions) error {
	set, store, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	m, err = store.Confirm(ctx, env.writer(set, o.agent), m.ID, gitstore.IfVersion(o.ifVersion))
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "confirmed %s: trust now %.2f\n", o.id, m.EffectiveTrust(env.Now()))
	return nil
}
