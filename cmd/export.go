package cmd

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memfile"
	"github.com/git-mem/git-mem/memview"
)

type exportOptions struct {
	format  string
	typ     string
	all     bool
	private bool
	global  bool
}

func newExportCmd(env *Env) *cobra.Command {
	o := &exportOptions{}
	c := &cobra.Command{
		Use:   "export [--format md|json|jsonl] [--all] [--private|--global]",
		Short: "Take memory out: Markdown grouped by type for people, JSON or JSONL that import reads back",
		Long: `Write the memories of one store to stdout.

--format md (the default) writes a readable MEMORY.md: one section per type,
one list item per memory, each followed by its id in a comment. A text no list
item can carry exactly (spaces around it, a line of spaces, an HTML comment)
is shown by its first line, and the comment holds it exactly, so that import
reads every memory back as it was. On a terminal, control and bidirectional
characters are shown escaped; a file or a pipe gets the text unchanged.
--format json writes an array and --format jsonl one memory per line, in the
shape --json uses; git mem import reads either back unchanged (ids, dates,
writers, links, events), so an export moves memory to another repository.

The project store by default; --private the private one, --global your
personal store. --all includes superseded and expired memories.`,
		Example: `  git mem export > MEMORY.md
  git mem export --format jsonl --all > memory.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.format {
			case "md", "markdown", "json", "jsonl":
			default:
				return usagef("--format is md, json or jsonl, not %q", o.format)
			}
			if o.private && o.global {
				return usagef("--private and --global exclude each other")
			}
			if o.typ != "" {
				if err := gitstore.ValidateType(o.typ); err != nil {
					return err
				}
			}
			return runExport(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "md", "`format`: md, json or jsonl")
	f.StringVarP(&o.typ, "type", "t", "", "only this `type`")
	f.BoolVar(&o.all, "all", false, "include superseded and expired memories")
	f.BoolVar(&o.private, "private", false, "export refs/memory/private")
	f.BoolVar(&o.global, "global", false, "export your personal store")
	return c
}

func runExport(ctx context.Context, env *Env, o *exportOptions) error {
	if !env.Terminal {
		return writeExport(env, env.Out, o)
	}
	// On a terminal the export is read, not saved: a memory's text must not
	// move the cursor or reorder what is shown, so it is escaped as every
	// human output is. Escapes keep JSON valid (\u202e is JSON's own); a file
	// or pipe gets the text exactly, for import to read back.
	var b strings.Builder
	err := writeExport(env, &b, o)
	if _, werr := io.WriteString(env.Out, terminalSafe(b.String(), true)); err == nil {
		err = werr
	}
	return err
}

func writeExport(env *Env, out io.Writer, o *exportOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	scope, title := gitstore.ScopeProject, "Project memory"
	switch {
	case o.private:
		scope, title = gitstore.ScopePrivate, "Private memory"
	case o.global || !set.InRepo():
		scope, title = gitstore.ScopePersonal, "Personal memory"
	}
	noteOutsideRepo(env, set)
	var store *gitstore.Store
	for _, s := range set.Stores() {
		if s.Scope == scope {
			store = s
		}
	}
	now := env.Now()
	var ms []*gitstore.Memory
	ref := gitstore.RefMain
	if store != nil {
		ref = store.Ref
		if ms, err = store.List(gitstore.Filter{Type: o.typ, All: o.all, Now: now}); err != nil {
			return err
		}
	}
	if o.format == "md" || o.format == "markdown" {
		return memfile.WriteMarkdown(out, ms, memfile.MarkdownOptions{Title: title, From: ref, Now: now})
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	short, err := set.ShortIDs(ids)
	if err != nil {
		return err
	}
	views := make([]memview.View, 0, len(ms))
	for _, m := range ms {
		views = append(views, toJSON(m, short[m.ID], now))
	}
	if o.format == "json" {
		return writeJSON(out, views)
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, v := range views {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}
