package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/surface"
)

// Streams are the command's standard input, output and error.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// Terminal reports whether Out is a terminal; ErrTerminal whether Err
	// is one (progress bars are drawn there, and only then).
	Terminal, ErrTerminal bool
}

// Env is everything a command takes from the process: streams, the directory,
// the environment and the clock. Tests build their own.
type Env struct {
	Streams
	Dir    string
	Getenv func(string) string
	Now    func() time.Time

	sets []*gitstore.Set // opened by the command: their skipped documents are warned about
	// process: the streams are the process's own, so another program can
	// take the process over (git mem mcp)
	process bool
}

// ProcessEnv is the Env of the running process.
func ProcessEnv() *Env {
	wd, _ := os.Getwd()
	return &Env{
		Streams: Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Terminal: term.IsTerminal(int(os.Stdout.Fd())), ErrTerminal: term.IsTerminal(int(os.Stderr.Fd()))},
		Dir:     wd,
		Getenv:  os.Getenv,
		Now:     time.Now,
		process: true,
	}
}

// chdir applies git's -C: relative paths are taken from the current directory.
func (e *Env) chdir(path string) {
	if path == "" {
		return
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Dir, path)
	}
	e.Dir = filepath.Clean(path)
}

// openSet opens the stores seen from the command's directory, after
// merging the memory a plain git fetch brought (see mergeFetched).
func (e *Env) openSet() (*gitstore.Set, error) {
	set, err := e.openSetAsIs()
	if err == nil {
		e.mergeFetched(set)
	}
	return set, err
}

// openSetAsIs opens the stores without merging fetched memory: for doctor,
// which reports it, and for pull, push, sync and share, which merge
// themselves.
func (e *Env) openSetAsIs() (*gitstore.Set, error) {
	set, err := e.openStores()
	if err != nil {
		return nil, err
	}
	e.sets = append(e.sets, set)
	return set, nil
}

// openStores opens the stores of the directory on the command's clock and
// GIT_AUTHOR_DATE / GIT_COMMITTER_DATE, remembering nothing.
func (e *Env) openStores() (*gitstore.Set, error) {
	return surface.OpenStores(e.Dir, false, e.clock())
}

// clock is the command's clock: Now, and the git date variables of its
// environment.
func (e *Env) clock() surface.Clock {
	return surface.Clock{Now: e.Now, Dates: surface.GitDatesFrom(e.Getenv)}
}

// warnSkipped tells on stderr which invalid memory documents the command's
// reads skipped, each with the command that removes it (but the one its
// error, err, is about: that one is said already).
func (e *Env) warnSkipped(err error) {
	seen := map[string]bool{}
	var failed *gitstore.DocumentError
	errors.As(err, &failed)
	for _, set := range e.sets {
		for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
			if r == nil {
				continue
			}
			for _, d := range r.Skipped() {
				if failed != nil && failed.Blob == d.Blob {
					continue
				}
				if key := r.GitDir + " " + d.Blob.String(); !seen[key] {
					seen[key] = true
					fmt.Fprintf(e.Err, "git mem: warning: %s\n", terminalSafe(documentWords(d), false))
				}
			}
		}
	}
}

// find opens the stores and finds the memory with an id or unique prefix.
func (e *Env) find(id string) (*gitstore.Set, *gitstore.Store, *gitstore.Memory, error) {
	set, err := e.openSet()
	if err != nil {
		return nil, nil, nil, err
	}
	store, m, err := set.Find(id)
	return set, store, m, err
}

// writer is who a CLI write is recorded as: --agent, else GIT_MEM_AGENT, else
// git config mem.agent, else the agent whose environment this runs in, else "cli".
func (e *Env) writer(set *gitstore.Set, agentFlag string) gitstore.Writer {
	agent := agentFlag
	if agent == "" {
		agent = e.Getenv("GIT_MEM_AGENT")
	}
	if agent == "" && set.Repo != nil {
		agent = set.Repo.Config().Get("mem", "", "agent")
	}
	if agent == "" {
		agent = agents.WriterName(agents.InShell(e.Getenv))
	}
	if agent == "" {
		agent = "cli"
	}
	session := e.Getenv("GIT_MEM_SESSION")
	if session == "" {
		session = e.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	return gitstore.Writer{Agent: strings.TrimSpace(agent), Session: session}
}

// usageError marks an error as a usage error (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error to the documented exit codes.
func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// journalWrites brings the start cache of each set the command opened
// forward over its writes, while the trees they changed are in its
// repositories' caches: the next session start then finds it current
// (handoff.JournalWrites).
func (e *Env) journalWrites(ctx context.Context) {
	for _, set := range e.sets {
		handoff.JournalWrites(ctx, set)
	}
}

// autoGC keeps the object stores the command opened packed the way git
// does (gc.auto, gc.autoDetach): every write leaves loose objects, and
// "git gc --auto" is started in the background when they pass git's
// threshold. A failure to start it is not the command's failure.
func (e *Env) autoGC(ctx context.Context) {
	for _, set := range e.sets {
		for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
			if r != nil {
				_ = r.AutoGC(ctx, true)
			}
		}
	}
}
