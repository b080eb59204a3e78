package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/surface"
)

type hookOptions struct {
	event string
	agent string
}

func newHookCmd(env *Env) *cobra.Command {
	o := &hookOptions{}
	c := &cobra.Command{
		Use:   "hook <session-start|prompt|session-end|stop> [--agent claude|codex|cursor|gemini]",
		Short: "Run as an agent's hook: payload JSON on stdin, the agent's JSON on stdout",
		Long: `Run as a coding agent's lifecycle hook (git mem install registers it). The
agent's JSON payload is read from stdin; the repository is the payload's cwd
(Cursor: workspace_roots), not the current directory.

  session-start  record the session's start marker and inject the latest
                 handoff for the branch, preferences and pinned memories,
                 and the most relevant memories (at most 8,000 characters)
  prompt         inject the memories best matching the prompt (at most
                 2,000 characters, each memory once per session)
  session-end    save a session note: commits made, files changed, files
                 still uncommitted (nothing when nothing happened)
  stop           remind the agent to save what it learned, at most every 5
                 prompts without a save (Cursor: the session note)

A hook never hurts a session: it always exits 0, prints the agent's documented
JSON or nothing, and logs errors to <git common dir>/mem/hooks.log. Each event
has an internal deadline (session-start 6 s, prompt 3 s, stop 2 s, session-end
700 ms; GIT_MEM_HOOK_DEADLINE_MS overrides it). Past it, a hook starts one of
two events of its own in the background, with its payload: warm (after
session-start or prompt) brings the caches up to date, finish (after a hook
that did not get to write its session note) writes the note.`,
		Example: `  echo '{"session_id":"s1","cwd":"/src/app","hook_event_name":"SessionStart","source":"startup"}' | git mem hook session-start`,
		Args:    cobra.ArbitraryArgs,
		// A hook exits 0 on every input, its command line included: the
		// arguments are read by hooks.ParseArgs, which never fails (an
		// unknown flag, or --agent without a value, is ignored).
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if a == "--" {
					break
				}
				if a == "-h" || a == "--help" {
					return cmd.Help()
				}
			}
			o.event, o.agent = hooks.ParseArgs(args)
			runHook(cmd.Context(), env, o)
			return nil
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "the agent sending the payload: claude, codex, cursor or gemini (default: detected)")
	return c
}

func runHook(ctx context.Context, env *Env, o *hookOptions) {
	hooks.Run(ctx, hooks.Request{
		Event: o.event, Agent: o.agent,
		In: env.In, Out: env.Out, Err: env.Err,
		Debug:  env.Getenv("GIT_MEM_DEBUG") != "",
		Getenv: env.Getenv, Now: env.Now,
		GitDates: surface.GitDatesFrom(env.Getenv),
		Later:    hooks.Background,
	})
}
