package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/linkstore"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/memview"
	"github.com/git-mem/git-mem/surface"
)

// addJSON is the --json answer of add: the memory, and what dedupe did
// (surface.Dedupe's fields, declared here at the top level because the
// view's own "reinforced", its list of reinforcements, would otherwise
// clash with them).
type addJSON struct {
	memview.View
	Reinforced          bool   `json:"reinforced"`
	PossibleDuplicateOf string `json:"possible_duplicate_of,omitempty"`
}

type addOptions struct {
	memory     gitstore.NewMemory
	supersedes string
	private    bool
	global     bool
	to         string
	agent      string
	json       bool
}

func newAddCmd(env *Env) *cobra.Command {
	o := &addOptions{}
	c := &cobra.Command{
		Use:   "add [flags] -- TEXT",
		Short: "Save one memory (one fact, decision, gotcha, convention, command or preference)",
		Long: `Save one memory. Put the text after -- so that nothing in it is read as a flag;
a text of - is read from stdin.

Types: ` + strings.Join(gitstore.Types, ", ") + `.
Sources: user (a person said so; the default), verified (checked by running
something), inferred (concluded by an agent; the default inside an agent).`,
		Example: `  git mem add --type decision -- "Bookings are stored in UTC; convert at the edge"
  git mem add --type gotcha --path server/auth.ts -- "requireAdmin throws ERR_NO_SESSION before login"
  git mem add --supersedes 3f2a9c -- "We deploy with Fly.io, not Heroku"
  git mem add --type command - < release-steps.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give the memory text after --, e.g. git mem add -- 'Bookings are stored in UTC'")
			}
			if o.private && o.global {
				return usagef("--private and --global exclude each other")
			}
			text, err := textArg(env, args)
			if err != nil {
				return err
			}
			o.memory.Text = text
			if !cmd.Flags().Changed("source") && agents.InShell(env.Getenv) != "" {
				o.memory.Source = gitstore.SourceInferred
			}
			return runAdd(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.memory.Type, "type", "t", gitstore.TypeFact, "memory `type`: "+strings.Join(gitstore.Types, ", "))
	f.StringArrayVar(&o.memory.Tags, "tag", nil, "a `tag` (repeatable)")
	f.StringArrayVar(&o.memory.Paths, "path", nil, "a repository `file` the memory is about (repeatable)")
	f.StringArrayVar(&o.memory.Keys, "key", nil, "a retrieval `key`: other words or a short question a later reader might search with (repeatable, up to 12)")
	f.StringVar(&o.memory.Source, "source", gitstore.SourceUser, "how it is known: user, verified, inferred")
	f.BoolVar(&o.memory.Tentative, "tentative", false, "you are not sure yet (lower starting trust)")
	f.BoolVar(&o.memory.Pinned, "pin", false, "always show it at session start")
	f.StringVar(&o.supersedes, "supersedes", "", "`id` of the memory this one replaces (closes its valid time)")
	f.BoolVar(&o.private, "private", false, "save to refs/memory/private (never pushed)")
	f.BoolVar(&o.global, "global", false, "save to your personal store (every project)")
	f.StringVar(&o.to, "to", "", "save to the linked store `NAME` (linked with --write; git mem sync pushes it)")
	f.StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	f.BoolVar(&o.memory.AllowSecret, "allow-secret", false, "store the text even if it looks like a credential (a harmless example)")
	f.BoolVar(&o.json, "json", false, "print the saved memory as JSON")
	return c
}

func runAdd(ctx context.Context, env *Env, o *addOptions) error {
	if err := o.memory.Validate(); err != nil {
		return err
	}
	set, err := env.openSet()
	if err != nil {
		return err
	}
	store, err := addStore(set, o)
	if err != nil {
		return err
	}
	if o.supersedes != "" {
		oldStore, old, err := set.Find(o.supersedes)
		if err != nil {
			return err
		}
		if oldStore.Scope != store.Scope {
			return fmt.Errorf("%w: %s is a %s memory; a replacement must be saved in the same store (use the matching --private/--global flag)", memerr.ErrInvalid, o.supersedes, oldStore.Scope)
		}
		o.memory.Supersedes = old.ID
	}
	o.memory.Anchor = surface.Anchor(set, store)
	// a process that exits once the memory is saved reads the recall
	// snapshot through a memory map: at 100,000 memories the duplicate
	// check reads a common word's postings, hundreds of kilobytes, without
	// copying them
	acc := index.Access{Map: env.process}
	outcome, err := acc.Remember(ctx, set, store, env.writer(set, o.agent), o.memory)
	if err != nil {
		return err
	}
	m := outcome.Memory
	short := displayID(set, m.ID)
	if store.Scope == gitstore.ScopePersonal {
		note := "saved to your personal store"
		if set.PersonalCreated {
			note = "created your personal store and saved to it"
		}
		if !set.InRepo() {
			note = "no git repository here: " + note
		}
		fmt.Fprintf(env.Err, "%s (%s)\n", note, set.Personal.GitDir)
	}
	if o.json {
		d := surface.NewDedupe(outcome)
		out := addJSON{View: toJSON(m, short, env.Now()), Reinforced: d.Reinforced, PossibleDuplicateOf: d.PossibleDuplicateOf}
		return writeJSON(env.Out, out)
	}
	if outcome.Reinforced {
		fmt.Fprintf(env.Err, "already known: reinforced %s instead of adding a copy (trust now %.2f)\n", short, m.EffectiveTrust(env.Now()))
	}
	if d := outcome.PossibleDuplicateOf; d != nil {
		ds := displayID(set, d.ID)
		fmt.Fprintf(env.Err, "saved; it looks like %s (%q) but says something else: if it replaces it, run git mem add --supersedes %s -- TEXT next time, or git mem forget %s\n",
			ds, terminalSafe(gitstore.Summary(d.Text, 60), false), ds, ds)
	}
	if m.Supersedes != "" {
		fmt.Fprintf(env.Err, "superseded %s: it stays in history and in git mem list --all\n", displayID(set, m.Supersedes))
	}
	if name, ok := linkstore.NameOf(store.Scope); ok && !outcome.Reinforced {
		fmt.Fprintf(env.Err, "saved to the local copy of the linked store %s: git mem sync pushes it\n", name)
	}
	fmt.Fprintln(env.Out, short)
	return nil
}

// addStore is the store git mem add writes to: --to NAME's linked store,
// else as writableStore chooses.
func addStore(set *gitstore.Set, o *addOptions) (*gitstore.Store, error) {
	if o.to == "" {
		return writableStore(set, o.private, o.global)
	}
	if o.private || o.global {
		return nil, usagef("--to NAME saves to a linked store; give it without --private or --global")
	}
	if err := linkstore.CheckName(o.to); err != nil {
		return nil, err
	}
	if !set.InRepo() {
		return nil, fmt.Errorf("%w: --to NAME saves to a store this repository links; run it inside one", memerr.ErrNoRepo)
	}
	return set.Writable(linkstore.Link{Name: o.to}.Scope())
}
