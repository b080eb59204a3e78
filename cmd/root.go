package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/memerr"
)

// Main runs git-mem with the process's arguments and returns the exit code.
func Main() int { return mainWith(os.Args[1:]) }

// mainWith runs git-mem in this process with args and returns the exit code.
func mainWith(args []string) int {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	// most commands allocate a few megabytes and exit soon after: the
	// collector waits until they have run for shortCommandTime, so a short
	// command spends nothing on a collection it never needed
	hooks.HoldCollector(softMemoryLimit, shortCommandTime)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, ProcessEnv(), args)
}

// softMemoryLimit is the heap git-mem's garbage collector keeps under when
// it can (GOMEMLIMIT overrides it): the everyday commands stay far below
// it, and a rebuild of a large store's caches (reindex, or the first
// command after a clone) collects harder instead of letting its heap
// double; a live heap over it is still served.
const softMemoryLimit = 224 << 20

// shortCommandTime is how long a command runs before the collector starts.
const shortCommandTime = 500 * time.Millisecond

// Run runs one git-mem command line in env and returns its exit code.
func Run(ctx context.Context, env *Env, args []string) int {
	return runRoot(ctx, env, newRootCmd(env), args)
}

// runRoot runs one command line of root in env and returns its exit code.
func runRoot(ctx context.Context, env *Env, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	root.SetIn(env.In)
	root.SetOut(env.Out)
	root.SetErr(env.Err)
	var ran *cobra.Command
	var err error
	if unknown := unknownCommand(root, args); unknown != nil {
		err = unknown
	} else {
		ran, err = root.ExecuteContextC(ctx)
	}
	env.warnSkipped(err)
	if err == nil && ran != nil && writeVerbs[ran.Name()] {
		env.journalWrites(ctx)
		env.autoGC(ctx)
	}
	if err == nil {
		return 0
	}
	var status exitStatus
	if errors.As(err, &status) {
		return int(status) // the program run in git-mem's place spoke for itself
	}
	code := exitCode(err)
	if code == 2 {
		fmt.Fprintf(env.Err, "git mem: %s\nRun '%s' for usage.\n", terminalSafe(messageFor(ran, err), true), helpHint(root, args))
		return 2
	}
	fmt.Fprintf(env.Err, "git mem: %s\n", terminalSafe(messageFor(ran, err), true))
	return code
}

// writeVerbs are the commands that write memory objects, after which the
// start cache is brought forward and git gc --auto may be due. Hooks never
// start git gc (their deadline is the agent's time), nor does the MCP
// server's command (memory_add does).
var writeVerbs = map[string]bool{
	"add": true, "revise": true, "confirm": true, "dispute": true, "forget": true,
	"handoff": true, "share": true, "pull": true, "sync": true, "demo": true,
}

// unknownCommand is the usage error of a command line whose first word
// names no command, found as cobra finds the command to run: the only error
// its Find returns. Shell completion's hidden request command, which cobra
// adds only when it runs, is left to cobra.
func unknownCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	if _, _, err := root.Find(args); err != nil {
		return usageError{err}
	}
	return nil
}

// usageArgs makes the errors of every command's argument check usage
// errors (exit 2), as the flag errors are (SetFlagErrorFunc): a usage
// error is told by where it comes from, never by its words, so that an
// error of the work itself that happens to read "invalid argument" (an
// EINVAL) is not taken for one.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				var u usageError
				if errors.As(err, &u) {
					return err
				}
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// newRootCmd is git mem with every verb.
func newRootCmd(env *Env) *cobra.Command { return newRoot(env, verbs()) }

// newRoot is git mem with the given verbs.
func newRoot(env *Env, verbs []func(*Env) *cobra.Command) *cobra.Command {
	var dir string
	root := &cobra.Command{
		Use: "git-mem",
		// git runs git-mem for "git mem", and that is what users type:
		// usage lines, help and man pages say so
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "git mem"},
		Version:     Version().String(),
		Short:       "Shared, durable memory for coding agents, stored in your git repository",
		Long: `git-mem keeps what coding agents learn inside the repository's own git database,
as commits on refs/memory/*: scoped by the repository, with full history, shared
with teammates through an ordinary git remote.

Exit codes: 0 success, 1 an error you can fix (the message says how), 2 a usage error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			env.chdir(dir)
			return nil
		},
	}
	root.SetVersionTemplate(versionLine())
	root.PersistentFlags().StringVarP(&dir, "directory", "C", "", "run as if git-mem was started in `path`")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	for _, add := range verbs {
		root.AddCommand(add(env))
	}
	groupCommands(root)
	registerCompletions(root, env)
	usageArgs(root)
	return root
}

// verbs are the constructors of the subcommands, each in its verb's file
// (newXCmd builds the command, its RunE validates and calls runX); a new
// verb is added here.
func verbs() []func(*Env) *cobra.Command {
	return []func(*Env) *cobra.Command{
		newAddCmd, newBootCmd, newCompletionCmd, newConfirmCmd, newDemoCmd,
		newDisputeCmd, newDoctorCmd, newEvalCmd, newExportCmd, newForgetCmd,
		newHandoffCmd, newHistoryCmd, newHookCmd, newImportCmd, newInstallCmd,
		newLinkCmd, newListCmd, newLogCmd, newMCPCmd, newPreviewCmd, newProposeCmd, newPullCmd,
		newPushCmd, newRecallCmd, newReindexCmd, newReviewCmd, newReviseCmd, newShareCmd,
		newShowCmd, newStatsCmd, newSyncCmd, newUICmd, newUninstallCmd,
		newUnlinkCmd, newVerifyCmd, newVersionCmd,
	}
}

// textArg joins the positional arguments into one text, verbatim; a lone
// "-" reads the text from env's stdin instead (up to maxStdinText bytes, one
// trailing newline dropped), so that a pasted error or a file can be passed
// without quoting: git mem recall - < error.log.
func textArg(env *Env, args []string) (string, error) {
	if len(args) != 1 || args[0] != "-" {
		return strings.Join(args, " "), nil
	}
	b, err := io.ReadAll(io.LimitReader(env.In, maxStdinText+1))
	if err != nil {
		return "", fmt.Errorf("reading the text from stdin: %w", err)
	}
	if len(b) > maxStdinText {
		return "", fmt.Errorf("%w: stdin holds more than %d bytes; pass a shorter text", memerr.ErrInvalid, maxStdinText)
	}
	text := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(text, "\r"), nil
}

// maxStdinText bounds what textArg reads from stdin: far above any text a
// command takes (a memory is at most gitstore.MaxTextBytes), so that the
// command's own check says what is too long, without reading a stream
// without end.
const maxStdinText = 1 << 20

// errMissingID is the usage error for a command missing its memory id.
var errMissingID = errors.New("give the memory id (or a unique prefix of it); see git mem list")
