// Command git-mem-hook runs git-mem's agent hooks in a small binary: the
// same hooks code as "git-mem hook", without cobra, bleve or the MCP SDK,
// whose package initialization costs an agent several times a bare
// process start on every session and prompt. Recall reads the snapshot
// beside the index, brought up to date in plain Go when it is stale.
//
//	git-mem-hook <session-start|prompt|session-end|stop> [--agent claude|codex|cursor|gemini]
//
// The payload is read from stdin; the exit code is always 0. "git mem
// install" writes this command into the agents' hook configs when this
// binary sits next to git-mem.
package main

import (
	"os"
	"time"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/surface"
)

func main() {
	ctx, stop := hooks.SignalContext()
	defer stop()
	event, agent := hooks.ParseArgs(os.Args[1:])
	hooks.PrepareRuntime(event)
	hooks.Run(ctx, hooks.Request{
		Event: event, Agent: agent,
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		Debug:  os.Getenv("GIT_MEM_DEBUG") != "",
		Getenv: os.Getenv, Now: time.Now,
		GitDates: surface.GitDatesFrom(os.Getenv),
		// this binary warms what git-mem would: the snapshot (neither
		// links the search index, which the MCP server keeps itself)
		Later:        hooks.Background,
		MapSnapshots: hooks.MapsSnapshots(event),
	})
	os.Exit(0)
}
