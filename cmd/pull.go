package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type pullOptions struct {
	remote  string
	agent   string
	noFetch bool
	json    bool
}

func newPullCmd(env *Env) *cobra.Command {
	o := &pullOptions{}
	c := &cobra.Command{
		Use:   "pull [REMOTE] [--no-fetch]",
		Short: "Fetch the team's memory and merge it, memory by memory",
		Long: `Fetch the remote's refs/memory/main into refs/memory/remotes/<remote>/main and
merge it into refs/memory/main: a fast-forward when possible, else a merge
commit with both parents that says what merged.

Different memories are united. A memory changed on both sides keeps every trust
event and reinforcement and the text of the side that changed it (both changed
it: the one updated last); both versions stay in history. A memory forgotten on
one side stays forgotten, unless the other side revised it since: then it is
kept, and the merge says so. The same two inputs give the same tree everywhere.

--no-fetch merges what the last plain git fetch brought (see git mem share).

` + remoteHelp,
		Args: remoteArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.remote = args[0]
			}
			return runPull(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.noFetch, "no-fetch", false, "merge refs/memory/remotes/<remote>/main as already fetched")
	c.Flags().StringVar(&o.agent, "agent", "", "record a merge as made by this `agent`")
	c.Flags().BoolVar(&o.json, "json", false, "print what happened as JSON")
	return c
}

func runPull(ctx context.Context, env *Env, o *pullOptions) error {
	set, rem, err := openRemote(ctx, env, o.remote)
	if err != nil {
		return err
	}
	res, err := set.Repo.Pull(ctx, env.writer(set, o.agent), rem, gitstore.PullOptions{TransportOptions: env.transport(), NoFetch: o.noFetch})
	if err != nil {
		return err
	}
	if err := afterPulls(ctx, env, set, res); err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Out, pullJSON(res))
	}
	writePull(env.Out, res)
	return nil
}
