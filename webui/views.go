package webui

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/surface"
)

// pageSize is how many memories one page of the list shows.
const pageSize = 50

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.memories)
	mux.HandleFunc("GET /m/{id}", s.memory)
	mux.HandleFunc("GET /timeline", s.timeline)
	mux.HandleFunc("GET /sessions", s.sessions)
	mux.HandleFunc("GET /team", s.team)
	mux.HandleFunc("GET /numbers", s.numbers)
	mux.HandleFunc("GET /api/tips", s.tips)
	mux.HandleFunc("POST /action/{op}", s.action)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFiles(s.pages.static))))
	return mux
}

// staticFiles serves the script and the style sheet, not the templates.
func staticFiles(f fs.FS) fs.FS {
	sub, err := fs.Sub(f, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}

// open opens the stores for one request.
func (s *Server) open() (*gitstore.Set, error) { return s.opts.Open() }

// tips answers the page's poll: a few bytes that change when any store moves.
func (s *Server) tips(w http.ResponseWriter, r *http.Request) {
	set, err := s.open()
	if err != nil {
		http.Error(w, words(err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"tips": tipsOf(set)})
}

// row is one memory in a list.
type row struct {
	ID, Short, Scope, Type, Text string
	Agent, Author, Branch        string
	Trust                        float64
	Created                      time.Time
	Retired                      bool
	// Label is a search result's confidence label.
	Label string
	Stale bool
}

func newRow(m *gitstore.Memory, short string, now time.Time) row {
	r := row{ID: m.ID, Short: short, Scope: string(m.Scope()), Type: m.Type, Text: m.Text,
		Agent: m.Agent, Author: m.Author, Trust: m.EffectiveTrust(now), Created: m.Created, Retired: m.Retired(now)}
	if r.Short == "" {
		r.Short = gitstore.Clip(m.ID, gitstore.MinShownPrefix)
	}
	if m.Anchor != nil {
		r.Branch = m.Anchor.Branch
	}
	return r
}

// listFilter is the Memories view's form.
type listFilter struct {
	Query, Type, Agent, Author, Branch, Store, Trust string
	Stale                                            bool
	Page                                             int
}

func readFilter(q url.Values) listFilter {
	f := listFilter{
		Query: strings.TrimSpace(q.Get("q")), Type: q.Get("type"), Agent: strings.TrimSpace(q.Get("agent")),
		Author: strings.TrimSpace(q.Get("author")), Branch: strings.TrimSpace(q.Get("branch")),
		Store: q.Get("store"), Trust: q.Get("trust"), Stale: q.Get("stale") != "",
	}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = max(f.Page, 0)
	return f
}

// onlyType: nothing but the type is asked, which the snapshot's catalog
// answers without decoding the store.
func (f listFilter) onlyType() bool {
	return f.Query == "" && f.Agent == "" && f.Author == "" && f.Branch == "" && f.Store == "" && f.Trust == "" && !f.Stale
}

// keep applies the filters that need the memory itself.
func (f listFilter) keep(m *gitstore.Memory, now time.Time) bool {
	if f.Type != "" && m.Type != f.Type {
		return false
	}
	if f.Agent != "" && !strings.Contains(strings.ToLower(m.Agent), strings.ToLower(f.Agent)) {
		return false
	}
	if f.Author != "" && !strings.Contains(strings.ToLower(m.Author), strings.ToLower(f.Author)) {
		return false
	}
	if f.Branch != "" && (m.Anchor == nil || m.Anchor.Branch != f.Branch) && handoff.HandoffBranch(m) != f.Branch {
		return false
	}
	if f.Store != "" && string(m.Scope()) != f.Store {
		return false
	}
	switch t := m.EffectiveTrust(now); f.Trust {
	case "high":
		return t >= 0.75
	case "medium":
		return t >= index.LowTrust && t < 0.75
	case "low":
		return t < index.LowTrust
	}
	return true
}

// link is the list's address with one more form value changed.
func (f listFilter) link(page int) string {
	v := url.Values{}
	for k, x := range map[string]string{"q": f.Query, "type": f.Type, "agent": f.Agent, "author": f.Author, "branch": f.Branch, "store": f.Store, "trust": f.Trust} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if f.Stale {
		v.Set("stale", "1")
	}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "./"
	}
	return "./?" + v.Encode()
}

type memoriesData struct {
	Filter     listFilter
	Types      []string
	Rows       []row
	Total      int
	Search     bool
	Prev, Next string
	From, To   int
}

func (s *Server) memories(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := readFilter(r.URL.Query())
	if f.Type != "" {
		if err := gitstore.ValidateType(f.Type); err != nil {
			s.fail(w, err)
			return
		}
	}
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	now := s.opts.Now()
	d := &memoriesData{Filter: f, Types: gitstore.Types, Search: f.Query != ""}
	switch {
	case f.Query != "":
		err = s.search(ctx, set, f, now, d)
	case f.onlyType():
		err = s.newest(ctx, set, f, now, d)
	default:
		err = s.filtered(ctx, set, f, now, d)
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	d.From = f.Page*pageSize + 1
	d.To = f.Page*pageSize + len(d.Rows)
	if f.Page > 0 {
		d.Prev = f.link(f.Page - 1)
	}
	if !d.Search && d.To < d.Total {
		d.Next = f.link(f.Page + 1)
	}
	s.render(w, http.StatusOK, "memories", &page{Title: "Memories", Nav: "memories", Tips: tipsOf(set), Flash: flash(r), Data: d})
}

// search is explicit recall, as git mem recall asks it, with each hit's
// confidence label.
func (s *Server) search(ctx context.Context, set *gitstore.Set, f listFilter, now time.Time, d *memoriesData) error {
	opts := index.Options{Query: f.Query, Limit: pageSize, Now: now, Point: index.Explicit}
	if set.Repo != nil {
		opts.Branch = set.Repo.Head().Branch
	}
	res, err := index.Recall(ctx, set, opts)
	if err != nil {
		return err
	}
	short := index.ShortIDs(set, res.Hits)
	for _, h := range res.Hits {
		if !f.keep(h.Memory, now) {
			continue
		}
		rw := newRow(h.Memory.InScope(h.Scope), short[h.Memory.ID], now)
		rw.Label = index.ConfidenceLabel(h.Confidence)
		rw.Stale = h.Stale
		d.Rows = append(d.Rows, rw)
	}
	d.Total = len(d.Rows)
	return nil
}

// newest is the first page's fast path: the snapshot's summaries order
// and filter by type, and only the memories shown are read.
func (s *Server) newest(ctx context.Context, set *gitstore.Set, f listFilter, now time.Time, d *memoriesData) error {
	l, ok, err := surface.Newest(ctx, set, surface.NewestQuery{Type: f.Type, Now: now, Limit: (f.Page + 1) * pageSize, Skip: f.Page * pageSize})
	if !ok {
		return s.filtered(ctx, set, f, now, d)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	d.Total = l.Total
	return l.Each(func(m *gitstore.Memory) error {
		d.Rows = append(d.Rows, newRow(m, l.Short[m.ID], now))
		return nil
	})
}

// filtered reads every current memory and keeps those the form asks for.
func (s *Server) filtered(ctx context.Context, set *gitstore.Set, f listFilter, now time.Time, d *memoriesData) error {
	var kept []*gitstore.Memory
	err := eachCurrent(set, gitstore.Filter{Type: f.Type, Now: now}, func(m *gitstore.Memory) {
		if !f.keep(m, now) {
			return
		}
		if f.Stale {
			if paths := staleness(ctx, set, m); !anyChanged(paths) {
				return
			}
		}
		kept = append(kept, m)
	})
	if err != nil {
		return err
	}
	newestFirst(kept)
	d.Total = len(kept)
	from := min(f.Page*pageSize, len(kept))
	kept = kept[from:min(from+pageSize, len(kept))]
	ids := make([]string, len(kept))
	for i, m := range kept {
		ids[i] = m.ID
	}
	short, err := set.ShortIDs(ids)
	if err != nil {
		return err
	}
	for _, m := range kept {
		rw := newRow(m, short[m.ID], now)
		rw.Stale = f.Stale
		d.Rows = append(d.Rows, rw)
	}
	return nil
}

// eachCurrent calls fn with every memory of the set's stores that passes
// the filter, one at a time: a view that keeps a few of them, or only
// counts, never holds the whole store (Set.List decodes all of it at
// once: docs/ui-bench.md).
func eachCurrent(set *gitstore.Set, f gitstore.Filter, fn func(*gitstore.Memory)) error {
	for _, st := range set.Stores() {
		rd, err := st.Read()
		if err != nil {
			return err
		}
		err = rd.Each(func(m *gitstore.Memory) error {
			if f.Keep(m) {
				fn(m.InScope(st.Scope))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// newestFirst orders memories as Set.List does.
func newestFirst(ms []*gitstore.Memory) {
	sort.SliceStable(ms, func(i, j int) bool {
		if !ms[i].Created.Equal(ms[j].Created) {
			return ms[i].Created.After(ms[j].Created)
		}
		return ms[i].ID < ms[j].ID
	})
}

// pathState is one of a memory's files and what happened to it since the
// memory was written.
type pathState struct {
	Path    string
	Commits int
	Missing bool
}

// staleness asks git what happened to a memory's files since the commit it
// was written at; nil when it cannot tell (no anchor, another clone).
func staleness(ctx context.Context, set *gitstore.Set, m *gitstore.Memory) []pathState {
	if set.Repo == nil || m.Anchor == nil || m.Anchor.Commit == "" || len(m.Paths) == 0 {
		return nil
	}
	got, err := index.PathChanges(ctx, set.Repo, m.Anchor.Commit, m.Paths)
	if err != nil {
		return nil
	}
	out := make([]pathState, 0, len(m.Paths))
	for _, p := range m.Paths {
		st := got[p]
		out = append(out, pathState{Path: p, Commits: st.Commits, Missing: st.Missing})
	}
	return out
}

func anyChanged(ps []pathState) bool {
	for _, p := range ps {
		if p.Commits > 0 || p.Missing {
			return true
		}
	}
	return false
}

// flash is what the last action did, named by a fixed word in the
// address (the page never echoes text from the address).
func flash(r *http.Request) string {
	return map[string]string{
		"confirmed": "Confirmed: its trust went up.",
		"disputed":  "Disputed: its trust went down, and the reason is in its history.",
		"revised":   "Revised: its history keeps the old text.",
		"forgotten": "Forgotten: it is no longer current; the memory ref's history still holds it (purge erases it).",
		"purged":    "Purged: no memory ref's history holds it any more, and git confirmed no reachable object does. Copies already pushed or fetched by teammates still hold it until the next sync.",
	}[r.URL.Query().Get("done")]
}
