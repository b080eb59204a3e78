package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/surface"
)

type listOptions struct {
	filter  gitstore.Filter
	asOf    string
	validAt string
	json    bool
	// limit is --limit; -1: not given (a screenful on a terminal, else all)
	limit int
}

// screenful is how many memories list shows on a terminal without --limit.
const screenful = 40

func newListCmd(env *Env) *cobra.Command {
	o := &listOptions{}
	c := &cobra.Command{
		Use:   "list [--type T] [--all] [--limit N] [--json]",
		Short: "List current memories (project, private and personal), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.limit < -1 {
				return fmt.Errorf("%w: --limit %d: give a number of memories, or 0 for all", memerr.ErrInvalid, o.limit)
			}
			if o.filter.Type != "" {
				if err := gitstore.ValidateType(o.filter.Type); err != nil {
					return err
				}
			}
			return runList(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.filter.Type, "type", "t", "", "only this `type`")
	f.BoolVar(&o.filter.All, "all", false, "include superseded and expired memories")
	f.StringVar(&o.asOf, "as-of", "", "the store as it was at `WHEN` (RFC 3339 time, YYYY-MM-DD, or a memory commit)")
	f.StringVar(&o.validAt, "valid-at", "", "what was true at `WHEN`, superseded facts included")
	f.BoolVar(&o.json, "json", false, "print a JSON array")
	f.IntVarP(&o.limit, "limit", "n", -1, fmt.Sprintf("show the newest `N` (0: all; default %d on a terminal, else all)", screenful))
	return c
}

func runList(ctx context.Context, env *Env, o *listOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	noteOutsideRepo(env, set)
	o.filter.Now = env.Now()
	limit := o.limit
	if limit < 0 {
		limit = 0
		if env.Terminal && !o.json {
			limit = screenful
		}
	}
	if limit > 0 && o.asOf == "" && o.validAt == "" {
		// the snapshot's summaries pick what is shown; only those are read
		// (listing everything reads the stores, which also tells about
		// invalid documents)
		l, ok, err := surface.Newest(ctx, set, surface.NewestQuery{Type: o.filter.Type, All: o.filter.All, Now: o.filter.Now, Limit: limit})
		if err != nil {
			return err
		}
		if ok {
			defer l.Close()
			return writeList(env, o, l.Total, l.Total-l.Len(), l.Short, l.Each)
		}
	}
	var ms []*gitstore.Memory
	if o.asOf != "" || o.validAt != "" {
		ms, err = listAt(ctx, set, o)
	} else {
		ms, err = set.List(o.filter)
	}
	if err != nil {
		return err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	more := 0
	if limit > 0 && len(ms) > limit {
		ms, more = ms[:limit], len(ms)-limit
	}
	// unique in the stores, where superseded memories count too (an older
	// tree's ids, for --as-of, count among themselves)
	short, err := set.ShortIDs(ids[:len(ms)])
	if err != nil {
		return err
	}
	return writeList(env, o, len(ids), more, short, func(yield func(*gitstore.Memory) error) error {
		for _, m := range ms {
			if err := yield(m); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeList prints the memories each yields, one at a time (a JSON array
// is streamed, element by element); total is how many passed the filter,
// more how many of them the limit left out.
func writeList(env *Env, o *listOptions, total, more int, short map[string]string, each func(yield func(*gitstore.Memory) error) error) error {
	if o.json {
		bw := bufio.NewWriter(env.Out)
		n := 0
		bw.WriteString("[")
		err := each(func(m *gitstore.Memory) error {
			if n > 0 {
				bw.WriteString(",")
			}
			n++
			bw.WriteString("\n  ")
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("  ", "  ")
			if err := enc.Encode(toJSON(m, short[m.ID], o.filter.Now)); err != nil {
				return err
			}
			_, err := bw.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
			return err
		})
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString("\n")
		}
		bw.WriteString("]\n")
		return bw.Flush()
	}
	if total == 0 {
		fmt.Fprintln(env.Err, "no memories yet; save one with git mem add -- TEXT")
		return nil
	}
	bw := bufio.NewWriter(env.Out)
	err := each(func(m *gitstore.Memory) error {
		_, err := fmt.Fprintln(bw, memoryLine(m, short[m.ID], o.filter.Now))
		return err
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if more > 0 {
		fmt.Fprintf(env.Err, "%d more; git mem list --limit 0 shows them all\n", more)
	}
	return nil
}

// listAt applies --as-of and --valid-at. A commit-ish in --as-of names a
// commit of the project memory ref, so only that store is read.
func listAt(ctx context.Context, set *gitstore.Set, o *listOptions) ([]*gitstore.Memory, error) {
	if o.validAt != "" {
		t, err := gitstore.ParseWhen(o.validAt, o.filter.Now)
		if err != nil {
			return nil, err
		}
		o.filter.ValidAt = &t
	}
	if o.asOf == "" {
		return set.List(o.filter)
	}
	if t, err := gitstore.ParseWhen(o.asOf, o.filter.Now); err == nil {
		o.filter.AsOf = &t
		return set.List(o.filter)
	}
	stores := set.Stores()
	if len(stores) == 0 {
		return nil, nil
	}
	store := stores[0]
	commit, err := store.ResolveCommit(ctx, o.asOf)
	if err != nil {
		return nil, err
	}
	rd, err := store.ReadAt(commit)
	if err != nil {
		return nil, err
	}
	all, err := rd.All()
	if err != nil {
		return nil, err
	}
	var out []*gitstore.Memory
	for _, m := range all {
		if o.filter.Keep(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// noteOutsideRepo tells the user that a read outside any repository shows the personal store.
func noteOutsideRepo(env *Env, set *gitstore.Set) {
	if !set.InRepo() {
		fmt.Fprintln(env.Err, "no git repository here: showing your personal store only")
	}
}
