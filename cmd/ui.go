package cmd

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/webui"
)

type uiOptions struct {
	port             int
	noOpen, readOnly bool
}

func newUICmd(env *Env) *cobra.Command {
	o := &uiOptions{}
	c := &cobra.Command{
		Use:   "ui [--port N] [--no-open] [--read-only]",
		Short: "Look at (and confirm, dispute, revise, forget) what the agents remember, in a local web page",
		Long: `Serve a page over the memory stores seen from here (project, private and
personal), and open it in the browser: the memories with filters and search,
one memory's whole history, the timeline with an as-of control, session notes
and handoffs, what pulls brought and what is not pushed, and counts. Unless
--read-only, the page confirms, disputes, revises, forgets and purges memories
with the same checks as the commands of those names.

The page is yours alone: it listens on 127.0.0.1 (and ::1) only, and its
address carries a random token for this run; any request without it is
refused. Ctrl-C stops it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.port < 0 || o.port > 65535 {
				return usagef("--port %d: give a port from 1 to 65535, or leave it out for a free one", o.port)
			}
			return runUI(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.IntVar(&o.port, "port", 0, "listen on port `N` of 127.0.0.1 (default: a free one)")
	f.BoolVar(&o.noOpen, "no-open", false, "print the address only; do not open a browser")
	f.BoolVar(&o.readOnly, "read-only", false, "show only: no confirm, dispute, revise, forget or purge")
	return c
}

func runUI(ctx context.Context, env *Env, o *uiOptions) error {
	// merge what a plain git fetch brought, once, as every read does
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	srv, err := webui.New(webui.Options{
		// afresh for each request (the store changes under the page), and
		// not remembered for the command's end (a long-lived server would
		// pile the sets up)
		Open:     env.openStores,
		Writer:   func(set *gitstore.Set) gitstore.Writer { return env.writer(set, "") },
		Now:      env.Now,
		ReadOnly: o.readOnly,
		Port:     o.port,
	})
	if err != nil {
		return err
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	url := srv.URL()
	fmt.Fprintf(env.Out, "git mem ui: %s\n", url)
	fmt.Fprintln(env.Err, "the address carries this run's token: share it with no one; Ctrl-C stops the page")
	if !o.noOpen {
		if err := openBrowser(env, url); err != nil {
			fmt.Fprintf(env.Err, "git mem: could not open a browser (%v); open the address above\n", err)
		}
	}
	return srv.Serve(ctx)
}

// openBrowser starts the user's browser on url: $BROWSER when set, else
// the system's opener. It does not wait for the browser.
func openBrowser(env *Env, url string) error {
	var c *exec.Cmd
	switch b := env.Getenv("BROWSER"); {
	case b != "":
		c = exec.Command(b, url)
	case runtime.GOOS == "darwin":
		c = exec.Command("open", url)
	case runtime.GOOS == "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}
