package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
)

type proposeOptions struct {
	to, id string
	json   bool
}

// proposeJSON is the --json answer of propose.
type proposeJSON struct {
	Link     string `json:"link"`
	ID       string `json:"id"`
	Ref      string `json:"ref"`
	Commit   string `json:"commit"`
	Replaced bool   `json:"replaced"`
}

func newProposeCmd(env *Env) *cobra.Command {
	o := &proposeOptions{}
	c := &cobra.Command{
		Use:   "propose --to NAME ID",
		Short: "Propose one of your memories to a linked store, for its reviewers",
		Long: `Send a memory of this repository (or your private or personal store) to the
linked store NAME as a proposal: refs/memory/proposals/<you>/<id> on its
remote, where <you> comes from your git user.email. It needs no right to
write the store's memory, only its proposals, so a read-only link can
propose. A reviewer lists it with git mem review NAME and accepts or rejects
it. The memory is checked for secrets and validity as every write is; when
the host refuses the push, its message is shown and nothing here changes.`,
		Example: `  git mem propose --to acme 3f2a9c`,
		Args:    exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			if o.to == "" {
				return usagef("give the linked store to propose to with --to NAME (git mem link --list shows them)")
			}
			if err := linkstore.CheckName(o.to); err != nil {
				return err
			}
			return runPropose(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.to, "to", "", "the linked store (`NAME`) to propose the memory to")
	c.Flags().BoolVar(&o.json, "json", false, "print what was proposed as JSON")
	return c
}

func runPropose(ctx context.Context, env *Env, o *proposeOptions) error {
	set, err := linkRepo(env)
	if err != nil {
		return err
	}
	l, err := linkstore.Find(set.Repo, o.to)
	if err != nil {
		return err
	}
	st, m, err := set.Find(o.id)
	if err != nil {
		return err
	}
	if st.Scope.Linked() {
		return fmt.Errorf("%w: %s is a memory of %s already; propose memories of this repository or your own stores", memerr.ErrInvalid, o.id, st.Scope)
	}
	c, err := linkstore.CopyOf(l.URL)
	if err != nil {
		return err
	}
	res, replaced, err := c.Propose(ctx, m, set.Repo.Author(), linkstore.RefreshOptions{TransportOptions: env.transport(), Now: env.Now,
		Writer: env.writer(set, "")})
	if err != nil {
		return fmt.Errorf("proposing %s to %s: %w", o.id, o.to, err)
	}
	if o.json {
		return writeJSON(env.Out, proposeJSON{Link: o.to, ID: m.ID, Ref: res.Ref, Commit: res.Commit.String(), Replaced: replaced})
	}
	verb := "proposed"
	if replaced {
		verb = "proposed again (replacing your earlier proposal)"
	}
	fmt.Fprintf(env.Out, "%s %s to %s as %s; a reviewer runs git mem review %s\n", verb, displayID(set, m.ID), o.to, res.Ref, o.to)
	return nil
}
