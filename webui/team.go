package webui

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// pullsShown is how many of the last pulls' merges the Team view shows.
const pullsShown = 5

type arrival struct {
	Commit  string
	Time    time.Time
	Subject string
	// Changes are the commits the merge brought: who added, revised,
	// purged what.
	Changes []gitCommit
}

type gitCommit struct {
	Commit, Author, Subject string
}

type unpushed struct {
	Remote  string
	Commits []gitCommit
}

// fetched is what a remote's memory held at the last pull or fetch,
// written by others than this repository's identity: what the team's
// agents added, revised or purged.
type fetched struct {
	Remote  string
	Commits []gitCommit
}

type teamData struct {
	InRepo   bool
	Pending  []string
	Pulls    []arrival
	Fetched  []fetched
	Unpushed []unpushed
	// NeverShared: no remote's memory was ever fetched or pushed.
	NeverShared bool
	Note        string
}

func (s *Server) team(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	d := &teamData{InRepo: set.Repo != nil && set.Repo.WorkTree != ""}
	if d.InRepo {
		if err := teamOf(ctx, set.Repo, d); err != nil {
			d.Note = words(err)
		}
	}
	s.render(w, http.StatusOK, "team", &page{Title: "Team", Nav: "team", Tips: tipsOf(set), Data: d})
}

func teamOf(ctx context.Context, repo *gitstore.Repo, d *teamData) error {
	pending, err := repo.FetchedPending(ctx)
	if err != nil {
		return err
	}
	for name := range pending {
		d.Pending = append(d.Pending, name)
	}
	sort.Strings(d.Pending)
	main := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	log, err := main.Log(ctx, 0)
	if err != nil {
		return err
	}
	for _, c := range log {
		if !c.Merge {
			continue
		}
		a := arrival{Commit: c.Commit.String(), Time: c.Time, Subject: c.Subject}
		// the commits the merge brought: reachable from its other parent,
		// not from this side's
		if a.Changes, err = gitLog(ctx, repo, c.Commit.String()+"^1.."+c.Commit.String()+"^2"); err != nil {
			return err
		}
		d.Pulls = append(d.Pulls, a)
		if len(d.Pulls) == pullsShown {
			break
		}
	}
	tracking, err := repo.ListRefs(gitstore.TrackingRefPrefix)
	if err != nil {
		return err
	}
	var names []string
	for name := range tracking {
		if strings.HasSuffix(name, "/main") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	d.NeverShared = len(names) == 0
	for _, name := range names {
		commits, err := gitLog(ctx, repo, name+".."+gitstore.RefMain)
		if err != nil {
			return err
		}
		remote := strings.TrimSuffix(strings.TrimPrefix(name, gitstore.TrackingRefPrefix), "/main")
		d.Unpushed = append(d.Unpushed, unpushed{Remote: remote, Commits: commits})
		// a pull that fast-forwards leaves no merge commit: what it brought
		// is the remote's commits by others
		theirs, err := gitLog(ctx, repo, name)
		if err != nil {
			return err
		}
		f := fetched{Remote: remote}
		for _, c := range theirs {
			if c.Author != repo.Author() && len(f.Commits) < fetchedShown {
				f.Commits = append(f.Commits, c)
			}
		}
		d.Fetched = append(d.Fetched, f)
	}
	return nil
}

// fetchedShown is how many of a remote's commits by others the Team view lists.
const fetchedShown = 50

// gitLogLimit bounds one list of commits on the Team view.
const gitLogLimit = 200

// gitLog lists a range of memory commits (newest first) as git log reads it.
func gitLog(ctx context.Context, repo *gitstore.Repo, rangeSpec string) ([]gitCommit, error) {
	out, err := repo.Git(ctx, "log", "--no-merges", fmt.Sprintf("--max-count=%d", gitLogLimit), "--format=%H%x1f%an <%ae>%x1f%s", rangeSpec, "--")
	if err != nil {
		return nil, err
	}
	var cs []gitCommit
	for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(l, "\x1f", 3)
		if len(f) == 3 {
			cs = append(cs, gitCommit{Commit: f[0], Author: f[1], Subject: f[2]})
		}
	}
	return cs, nil
}

// bar is one bar of a chart drawn by the server.
type bar struct {
	Label string
	N     int
	Y, W  int
}

type chart struct {
	Title  string
	Height int
	Bars   []bar
}

// barWidth is the longest bar's width, in the chart's units.
const barWidth = 300

func newChart(title string, cs []count) chart {
	c := chart{Title: title, Height: 22*len(cs) + 4}
	most := 1
	for _, x := range cs {
		most = max(most, x.N)
	}
	for i, x := range cs {
		c.Bars = append(c.Bars, bar{Label: x.Name, N: x.N, Y: 22 * i, W: max(1, x.N*barWidth/most)})
	}
	return c
}

// weeksShown is how many weeks the per-week chart goes back.
const weeksShown = 12

type numbersData struct {
	Total  int
	Charts []chart
}

func (s *Server) numbers(w http.ResponseWriter, r *http.Request) {
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	now := s.opts.Now()
	types, agents, stores, weeks := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	var weekOrder []count
	start := now.UTC().AddDate(0, 0, -7*(weeksShown-1))
	for i := range weeksShown {
		weekOrder = append(weekOrder, count{Name: weekOf(start.AddDate(0, 0, 7*i))})
	}
	total := 0
	err = eachCurrent(set, gitstore.Filter{Now: now}, func(m *gitstore.Memory) {
		total++
		types[m.Type]++
		agents[firstNonEmpty(m.Agent, "unknown")]++
		stores[string(m.Scope())]++
		weeks[weekOf(m.Created)]++
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	for i := range weekOrder {
		weekOrder[i].N = weeks[weekOrder[i].Name]
	}
	d := &numbersData{Total: total, Charts: []chart{
		newChart("By type", sorted(types)),
		newChart("By agent", sorted(agents)),
		newChart("By store", sorted(stores)),
		newChart(fmt.Sprintf("Created per week (the last %d)", weeksShown), weekOrder),
	}}
	s.render(w, http.StatusOK, "numbers", &page{Title: "Numbers", Nav: "numbers", Tips: tipsOf(set), Data: d})
}

// weekOf names a time's ISO week: 2026-W48.
func weekOf(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%d-W%02d", y, w)
}
