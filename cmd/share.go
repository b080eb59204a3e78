package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type shareOptions struct {
	remote string
}

func newShareCmd(env *Env) *cobra.Command {
	o := &shareOptions{}
	c := &cobra.Command{
		Use:   "share [REMOTE]",
		Short: "Make a plain git fetch bring the remote's memory too",
		Long: `Add the memory refspec to the remote's fetch configuration, once:

  git config --add remote.origin.fetch '+refs/memory/main:refs/memory/remotes/origin/main'

After it, git fetch (and git pull) also bring the remote's memory into
refs/memory/remotes/<remote>/main, and the next git mem command (list,
recall, add, …), hook or MCP call merges it into refs/memory/main before it
reads: the team's memory arrives with your code. git mem pull --no-fetch
merges it at once. Pushing memory stays explicit: git mem push.
Running it twice changes nothing.`,
		Args: remoteArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.remote = args[0]
			}
			return runShare(cmd.Context(), env, o)
		},
	}
	return c
}

func runShare(ctx context.Context, env *Env, o *shareOptions) error {
	set, rem, err := openRemote(ctx, env, o.remote)
	if err != nil {
		return err
	}
	added, err := set.Repo.ShareRefspec(ctx, rem)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("git config --add remote.%s.fetch '%s'", rem.Name, gitstore.RemoteFetchRefspec(rem.Slug))
	if !added {
		fmt.Fprintf(env.Out, "already shared: git fetch %s brings its memory into %s\n", rem.Name, rem.TrackingRef())
		return nil
	}
	fmt.Fprintf(env.Out, "added: %s\n", line)
	fmt.Fprintf(env.Out, "git fetch %s now brings its memory into %s; the next git mem command or hook merges it\n", rem.Name, rem.TrackingRef())
	return nil
}
