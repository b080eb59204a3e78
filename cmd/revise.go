package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

type reviseOptions struct {
	id, text, agent, ifVersion string
	allowSecret                bool
	// keys replace the memory's retrieval keys when setKeys (--key or --no-keys).
	keys            []string
	noKeys, setKeys bool
}

func newReviseCmd(env *Env) *cobra.Command {
	o := &reviseOptions{}
	c := &cobra.Command{
		Use:   "revise ID [--key K]... [--no-keys] [-- TEXT]",
		Short: "Replace the text or the retrieval keys of a memory (history keeps the old ones)",
		Long: `Replace the text of a memory, e.g. to fix a typo or add precision, or its
retrieval keys (--key replaces them all; --no-keys removes them); a TEXT of -
is read from stdin. When the fact itself changed, save the new fact with
git mem add --supersedes ID instead, so that what was true before stays
answerable.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.setKeys = cmd.Flags().Changed("key") || o.noKeys
			if len(args) < 1 || (len(args) < 2 && !o.setKeys) {
				return usagef("give the id and the new text: git mem revise ID -- TEXT (or new keys with --key)")
			}
			if o.noKeys && len(o.keys) > 0 {
				return usagef("--key and --no-keys cannot be used together")
			}
			o.id = args[0]
			if len(args) > 1 {
				text, err := textArg(env, args[1:])
				if err != nil {
					return err
				}
				o.text = text
			}
			return runRevise(cmd.Context(), env, o)
		},
	}
	c.Flags().StringArrayVar(&o.keys, "key", nil, "a retrieval `key` (repeatable): replaces the memory's keys")
	c.Flags().BoolVar(&o.noKeys, "no-keys", false, "remove the memory's retrieval keys")
	c.Flags().StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	c.Flags().BoolVar(&o.allowSecret, "allow-secret", false, "store the text even if it looks like a credential (a harmless example)")
	c.Flags().StringVar(&o.ifVersion, "if-version", "", "change it only while it is at this `version` (git mem show gives it)")
	return c
}

func runRevise(ctx context.Context, env *Env, o *reviseOptions) error {
	set, store, m, err := env.find(o.id)
	if err != nil {
		return err
	}
	opts := []gitstore.WriteOption{gitstore.IfVersion(o.ifVersion)}
	if o.allowSecret {
		opts = append(opts, gitstore.AllowSecret())
	}
	if o.setKeys {
		opts = append(opts, gitstore.WithKeys(o.keys))
	}
	rev, err := store.Revise(ctx, env.writer(set, o.agent), m.ID, o.text, opts...)
	if err != nil {
		return err
	}
	index.EmbedMemories(ctx, set, store.Scope, rev)
	fmt.Fprintf(env.Out, "revised %s; git mem history %s shows every version\n", o.id, o.id)
	return nil
}
