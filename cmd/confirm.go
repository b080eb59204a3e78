package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

type confirmOptions struct {
	id, agent string
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
	return c
}

func runConfirm(ctx context.Context, env *Env, o *confirmOptions) error {
	set, store, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	m, err = store.Confirm(ctx, env.writer(set, o.agent), m.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "confirmed %s: trust now %.2f\n", o.id, m.EffectiveTrust(env.Now()))
	return nil
}
