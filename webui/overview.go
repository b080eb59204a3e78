package webui

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
)

// timelineLimit is how many commits of each memory ref the timeline reads.
const timelineLimit = 1000

type dayRow struct {
	Day     string
	Agents  []count
	Changes []changeRow
}

type changeRow struct {
	Commit, Op, Agent, Author, Subject, Store string
	Time                                      time.Time
	IDs                                       []string
	Merge                                     bool
}

type timelineData struct {
	AsOf, ValidAt string
	// At is what the store held (transaction time) or what was true
	// (valid time) at the time asked; nil when none was asked.
	At     []row
	AtNote string
	Days   []dayRow
}

func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	now := s.opts.Now()
	q := r.URL.Query()
	d := &timelineData{AsOf: strings.TrimSpace(q.Get("as_of")), ValidAt: strings.TrimSpace(q.Get("valid_at"))}
	if d.AsOf != "" || d.ValidAt != "" {
		if err := s.asOf(ctx, set, d, now); err != nil {
			s.fail(w, err)
			return
		}
	}
	var all []changeRow
	for _, st := range set.Stores() {
		log, err := st.Log(ctx, timelineLimit)
		if err != nil {
			s.fail(w, err)
			return
		}
		for _, c := range log {
			all = append(all, changeRow{Commit: c.Commit.String(), Op: c.Op, Agent: c.Agent, Author: c.Author, Subject: c.Subject, Store: string(st.Scope), Time: c.Time, IDs: c.IDs, Merge: c.Merge})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
	byDay := map[string]*dayRow{}
	var order []string
	agents := map[string]map[string]int{}
	for _, c := range all {
		day := c.Time.UTC().Format(time.DateOnly)
		if byDay[day] == nil {
			byDay[day] = &dayRow{Day: day}
			agents[day] = map[string]int{}
			order = append(order, day)
		}
		byDay[day].Changes = append(byDay[day].Changes, c)
		agents[day][firstNonEmpty(c.Agent, c.Author, "unknown")]++
	}
	for _, day := range order {
		dr := byDay[day]
		dr.Agents = sorted(agents[day])
		d.Days = append(d.Days, *dr)
	}
	s.render(w, http.StatusOK, "timeline", &page{Title: "Timeline", Nav: "timeline", Tips: tipsOf(set), Data: d})
}

// asOf fills the timeline's as-of list, as git mem list --as-of and
// --valid-at read it: a time, a date (its end) or a commit of the project
// memory ref.
func (s *Server) asOf(ctx context.Context, set *gitstore.Set, d *timelineData, now time.Time) error {
	f := gitstore.Filter{Now: now}
	// trust is shown as it stood then
	then := now
	if d.ValidAt != "" {
		t, err := gitstore.ParseWhen(d.ValidAt, now)
		if err != nil {
			return err
		}
		f.ValidAt = &t
		then = t
	}
	var ms []*gitstore.Memory
	var err error
	switch t, perr := gitstore.ParseWhen(d.AsOf, now); {
	case d.AsOf == "":
		ms, err = set.List(f)
	case perr == nil:
		f.AsOf = &t
		then = t
		ms, err = set.List(f)
	default:
		stores := set.Stores()
		if len(stores) == 0 {
			return perr
		}
		commit, cerr := stores[0].ResolveCommit(ctx, d.AsOf)
		if cerr != nil {
			return cerr
		}
		rd, rerr := stores[0].ReadAt(commit)
		if rerr != nil {
			return rerr
		}
		if ct, cerr := stores[0].Repo.CommitTime(commit); cerr == nil {
			then = ct
		}
		all, aerr := rd.All()
		if aerr != nil {
			return aerr
		}
		for _, m := range all {
			if f.Keep(m) {
				ms = append(ms, m.InScope(stores[0].Scope))
			}
		}
	}
	if err != nil {
		return err
	}
	d.AtNote = fmt.Sprintf("%d memories", len(ms))
	if len(ms) == 1 {
		d.AtNote = "1 memory"
	}
	d.At = []row{}
	for i, m := range ms {
		if i == pageSize {
			d.AtNote += fmt.Sprintf(", the newest %d shown", pageSize)
			break
		}
		d.At = append(d.At, newRow(m, "", then))
	}
	return nil
}

type branchNotes struct {
	Branch string
	Notes  []row
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	now := s.opts.Now()
	var branches []*branchNotes
	byBranch := map[string]*branchNotes{}
	err = eachCurrent(set, gitstore.Filter{Now: now}, func(m *gitstore.Memory) {
		if m.Type != gitstore.TypeHandoff && m.Type != gitstore.TypeSession {
			return
		}
		b := firstNonEmpty(handoff.HandoffBranch(m), "(no branch)")
		if byBranch[b] == nil {
			byBranch[b] = &branchNotes{Branch: b}
			branches = append(branches, byBranch[b])
		}
		byBranch[b].Notes = append(byBranch[b].Notes, newRow(m, "", now))
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	for _, b := range branches {
		sort.SliceStable(b.Notes, func(i, j int) bool { return b.Notes[i].Created.After(b.Notes[j].Created) })
	}
	sort.SliceStable(branches, func(i, j int) bool {
		return branches[i].Notes[0].Created.After(branches[j].Notes[0].Created)
	})
	s.render(w, http.StatusOK, "sessions", &page{Title: "Sessions", Nav: "sessions", Tips: tipsOf(set), Data: branches})
}

// count is one bar of a chart, or one name with its number.
type count struct {
	Name string
	N    int
}

func sorted(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, v := range m {
		out = append(out, count{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
