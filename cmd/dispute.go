package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type disputeOptions struct {
	id, reason, agent, ifVersion string
}

func newDisputeCmd(env *Env) *cobra.Command {
	o := &disputeOptions{}
	c := &cobra.Command{
		Use:   "dispute ID [--reason R]",
		Short: "Record that a memory looks wrong, and why (lowers its trust)",
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runDispute(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.reason, "reason", "", "why it looks wrong")
	c.Flags().StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	c.Flags().StringVar(&o.ifVersion, "if-version", "", "change it only while it is at this `version` (git mem show gives it)")
	return c
}

func runDispute(ctx context.Context, env *Env, o *disputeOptions) error {
	set, store, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	m, err = store.Dispute(ctx, env.writer(set, o.agent), m.ID, o.reason, gitstore.IfVersion(o.ifVersion))
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "disputed %s: trust now %.2f; if you know the right fact, save it with git mem add --supersedes %s\n", o.id, m.EffectiveTrust(env.Now()), o.id)
	return nil
}
