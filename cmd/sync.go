package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

type syncOptions struct {
	remote string
	agent  string
	json   bool
}

// remoteHelp is shared by push, pull and sync.
const remoteHelp = `REMOTE is a configured remote name or a URL or path. Without it: git config
mem.remote if set (a separate repository may hold a public project's memory),
else the current branch's upstream remote, else origin. Remotes that git would
read as an option (-...) or as a remote helper (ext::..., <transport>::...) are
refused.

Only refs/memory/main moves: it is fetched into refs/memory/remotes/<remote>/main
and pushed to the remote's refs/memory/main; refs/memory/private never leaves
this repository. The transport is your git: paths, file://, ssh (keys, agent)
and https (credential helpers) work as they do for git fetch and git push.`

func newSyncCmd(env *Env) *cobra.Command {
	o := &syncOptions{}
	c := &cobra.Command{
		Use:   "sync [REMOTE]",
		Short: "Pull the team's memory, merge it, and push the result",
		Long: `Pull the remote's memory, merge it memory by memory, then push refs/memory/main
when the remote lacks something. Running it again with nothing new changes nothing.

` + remoteHelp,
		Args: remoteArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.remote = args[0]
			}
			return runSync(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "record a merge as made by this `agent`")
	c.Flags().BoolVar(&o.json, "json", false, "print what happened as JSON")
	return c
}

// remoteArgs accepts at most one REMOTE.
func remoteArgs(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("give at most one remote (a name such as origin, or a URL); got %d arguments", len(args))
	}
	return nil
}

// openRemote opens the repository of the command's directory and resolves the remote.
func openRemote(ctx context.Context, env *Env, arg string) (*gitstore.Set, *gitstore.Remote, error) {
	set, err := env.openSetAsIs()
	if err != nil {
		return nil, nil, err
	}
	if !set.InRepo() {
		return nil, nil, fmt.Errorf("%w: sharing memory needs a repository; run it inside one (or pass -C PATH)", memerr.ErrNoRepo)
	}
	rem, err := set.Repo.ResolveRemote(ctx, arg)
	if err != nil {
		return nil, nil, err
	}
	return set, rem, nil
}

// transport is how git may talk to the user: prompts only on a terminal.
func (e *Env) transport() gitstore.TransportOptions {
	return gitstore.TransportOptions{Prompt: e.Terminal}
}

// pushVerify reads git config mem.pushVerify: run the pre-push hook for memory pushes.
func pushVerify(set *gitstore.Set) bool {
	switch strings.ToLower(strings.TrimSpace(set.Repo.Config().Get("mem", "", "pushverify"))) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

func runSync(ctx context.Context, env *Env, o *syncOptions) error {
	set, rem, err := openRemote(ctx, env, o.remote)
	if err != nil {
		return err
	}
	defer startLinkRefresh(env, set)
	res, err := set.Repo.Sync(ctx, env.writer(set, o.agent), rem, env.transport(), pushVerify(set))
	if err != nil {
		return err
	}
	pulls := []*gitstore.PullResult{res.Pull}
	if res.Push != nil {
		pulls = append(pulls, res.Push.Pulls...)
	}
	if err := afterPulls(ctx, env, set, pulls...); err != nil {
		return err
	}
	if o.json {
		out := map[string]any{"remote": rem.Display, "pull": pullJSON(res.Pull)}
		if res.Push != nil {
			out["push"] = pushJSONOf(res.Push)
		}
		if err := writeJSON(env.Out, out); err != nil {
			return err
		}
		return pushLinks(ctx, env, set, env.Err)
	}
	writePull(env.Out, res.Pull)
	if res.Push != nil {
		writePush(env.Out, res.Push)
	} else if !res.Pull.Fetched.IsZero() {
		fmt.Fprintf(env.Out, "%s has everything: nothing to push\n", rem.Display)
	}
	return pushLinks(ctx, env, set, env.Out)
}

// mergeJSON is the --json shape of a merge.
type mergeJSON struct {
	Result    string   `json:"result"`
	Commit    string   `json:"commit,omitempty"`
	New       []string `json:"new"`
	Changed   []string `json:"changed"`
	Merged    []string `json:"merged"`
	Removed   []string `json:"removed"`
	Revived   []string `json:"revived"`
	LocalOnly int      `json:"local_only"`
	// Rejected are the invalid documents the remote has that were not merged.
	Rejected []rejectedJSON `json:"rejected"`
}

// rejectedJSON is one invalid document a pull did not merge.
type rejectedJSON struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func mergeJSONOf(m *gitstore.MergeResult) *mergeJSON {
	if m == nil {
		return nil
	}
	nz := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	j := &mergeJSON{Result: string(m.Kind), New: nz(m.New), Changed: nz(m.Changed), Merged: nz(m.Merged),
		Removed: nz(m.Removed), Revived: nz(m.Revived), LocalOnly: len(m.Local) + len(m.Forgotten), Rejected: []rejectedJSON{}}
	for _, d := range m.Rejected {
		j.Rejected = append(j.Rejected, rejectedJSON{ID: d.ID, Path: d.Path(), Reason: d.Reason})
	}
	if !m.Commit.IsZero() {
		j.Commit = m.Commit.String()
	}
	return j
}

func pullJSON(p *gitstore.PullResult) map[string]any {
	out := map[string]any{"remote": p.Remote.Display, "tracking_ref": p.Remote.TrackingRef(), "fetched": "",
		"rewritten": p.Rewritten, "purged_by_teammate": append([]string{}, p.TeammatePurged...)}
	if !p.Fetched.IsZero() {
		out["fetched"] = p.Fetched.String()
	}
	if p.Merge != nil {
		out["merge"] = mergeJSONOf(p.Merge)
	} else {
		out["merge"] = &mergeJSON{Result: "remote-empty", New: []string{}, Changed: []string{}, Merged: []string{}, Removed: []string{}, Revived: []string{}, Rejected: []rejectedJSON{}}
	}
	return out
}

// writePull prints what a pull did.
func writePull(w io.Writer, p *gitstore.PullResult) {
	name := p.Remote.Display
	if p.Fetched.IsZero() && p.NoFetch {
		fmt.Fprintf(w, "nothing fetched from %s yet (%s does not exist): run git mem pull %s, or git mem share %s then git fetch\n", name, p.Remote.TrackingRef(), name, name)
		return
	}
	if p.Fetched.IsZero() || p.Merge == nil {
		fmt.Fprintf(w, "%s has no memory yet: nothing to pull (git mem push %s shares yours)\n", name, name)
		return
	}
	m := p.Merge
	switch m.Kind {
	case gitstore.MergeUpToDate, gitstore.MergeNothing:
		fmt.Fprintf(w, "already up to date with %s (%s)\n", name, p.Fetched.String()[:7])
	case gitstore.MergeFastForward:
		fmt.Fprintf(w, "%s: %s\n", gitstore.RefMain, m.Summary(name))
	default:
		fmt.Fprintf(w, "merged %s into %s (%s): %s\n", name, gitstore.RefMain, m.Commit.String()[:7], m.Summary(name))
		for _, id := range m.Revived {
			// the whole id in the command: a prefix may name two memories
			fmt.Fprintf(w, "  kept %s: forgotten on one side, revised on the other (git mem history %s)\n", gitstore.Clip(id, gitstore.MinShownPrefix), id)
		}
	}
	for _, d := range m.Rejected {
		fmt.Fprintln(w, terminalSafe(fmt.Sprintf("  not merged: %s from %s is invalid (%s); ask whoever wrote it to fix or forget it there", d.Path(), name, d.Reason), false))
	}
}
