// Command git-mem-hook runs git-mem's agent hooks in a small binary: the
// same hooks code as "git-mem hook", without bleve, cobra or the MCP SDK,
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
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/git-mem/git-mem/hooks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	event, agent := hooks.ParseArgs(os.Args[1:])
	hooks.Run(ctx, hooks.Request{
		Event: event, Agent: agent,
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		Debug:  os.Getenv("GIT_MEM_DEBUG") != "",
		Getenv: os.Getenv, Now: time.Now,
		Warm: func(payload []byte) {
			if exe := warmer(); exe != "" {
				_ = hooks.StartWarm(exe, payload)
			}
		},
	})
	os.Exit(0)
}

// warmer is the binary that brings the caches up to date in the
// background after a hook ran out of time: git-mem next to this binary or
// on PATH (it also brings the bleve index forward), else this binary.
func warmer() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if full := filepath.Join(filepath.Dir(exe), "git-mem"); isExecutable(full) {
		return full
	}
	if full, err := exec.LookPath("git-mem"); err == nil {
		return full
	}
	return exe
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
