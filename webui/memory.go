package webui

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// versionRow is one version of a memory in its history, with what its
// text changed from the version before.
type versionRow struct {
	Commit, Op, Agent, Author string
	Time                      time.Time
	Removed                   bool
	Invalid                   string
	Trust                     float64
	Diff                      []diffPart
	// Events are the confirms and disputes this version added.
	Events []gitstore.Event
}

type chainLink struct {
	ID, Short, Text string
	Current         bool
}

type memoryData struct {
	M       *gitstore.Memory
	Short   string
	Scope   string
	Version string
	Trust   float64
	Retired bool
	Paths   []pathState
	Stale   bool
	// Older are the memories this one replaced, nearest first; Newer
	// those that replaced it.
	Older, Newer []chainLink
	History      []versionRow
}

func (s *Server) memory(w http.ResponseWriter, r *http.Request) {
	set, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	d, err := s.memoryData(r.Context(), set, r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.render(w, http.StatusOK, "memory", &page{Title: d.Short, Nav: "memories", Tips: tipsOf(set), Flash: flash(r), Data: d})
}

func (s *Server) memoryData(ctx context.Context, set *gitstore.Set, id string) (*memoryData, error) {
	store, m, err := set.Find(id)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	d := &memoryData{M: m, Scope: string(store.Scope), Version: m.Version(), Trust: m.EffectiveTrust(now), Retired: m.Retired(now)}
	d.Short = shortID(set, m.ID)
	d.Paths = staleness(ctx, set, m)
	d.Stale = anyChanged(d.Paths)
	d.Older, d.Newer = chain(set, m)
	versions, err := store.History(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	for i, v := range versions {
		vr := versionRow{Commit: v.Commit.String(), Op: v.Op, Agent: v.Agent, Author: v.Author, Time: v.Time, Invalid: v.Invalid}
		var before *gitstore.Memory
		if i+1 < len(versions) {
			before = versions[i+1].Memory
		}
		if v.Memory == nil {
			vr.Removed = v.Invalid == ""
		} else {
			vr.Trust = v.Memory.EffectiveTrust(v.Time)
			old := ""
			if before != nil {
				old = before.Text
			}
			if old != v.Memory.Text {
				vr.Diff = diffWords(old, v.Memory.Text)
			}
			n := 0
			if before != nil {
				n = len(before.Events)
			}
			if n <= len(v.Memory.Events) {
				vr.Events = v.Memory.Events[n:]
			}
		}
		d.History = append(d.History, vr)
	}
	return d, nil
}

// shortID is the shortest prefix of id unique in the stores.
func shortID(set *gitstore.Set, id string) string {
	if short, err := set.ShortIDs([]string{id}); err == nil && short[id] != "" {
		return short[id]
	}
	return gitstore.Clip(id, gitstore.MinShownPrefix)
}

// maxChain bounds a supersede chain walked for the page (a loop in a hand
// edited store must not hang it).
const maxChain = 50

// chain follows supersedes back and superseded_by forward.
func chain(set *gitstore.Set, m *gitstore.Memory) (older, newer []chainLink) {
	walk := func(next func(*gitstore.Memory) string) []chainLink {
		var out []chainLink
		seen := map[string]bool{m.ID: true}
		cur := m
		for range maxChain {
			id := next(cur)
			if id == "" || seen[id] {
				break
			}
			seen[id] = true
			_, nm, err := set.Find(id)
			if err != nil {
				out = append(out, chainLink{ID: id, Short: gitstore.Clip(id, gitstore.MinShownPrefix), Text: "(forgotten or not in these stores)"})
				break
			}
			out = append(out, chainLink{ID: nm.ID, Short: shortID(set, nm.ID), Text: nm.Text, Current: nm.SupersededBy == ""})
			cur = nm
		}
		return out
	}
	older = walk(func(x *gitstore.Memory) string { return x.Supersedes })
	newer = walk(func(x *gitstore.Memory) string { return x.SupersededBy })
	return older, newer
}

// diffPart is a run of words a version kept, added or removed.
type diffPart struct {
	Op   string // "=", "+", "-"
	Text string
}

// maxDiffCells bounds the word diff's table: two texts of the largest
// size a memory may hold would need tens of millions of cells; past the
// bound the diff shows the whole old and new text.
const maxDiffCells = 1 << 20

// diffWords is a longest-common-subsequence diff of two texts by words
// (spaces kept with the word before them), as a reader compares versions.
func diffWords(a, b string) []diffPart {
	x, y := splitWords(a), splitWords(b)
	if len(x)*len(y) > maxDiffCells {
		var out []diffPart
		if a != "" {
			out = append(out, diffPart{"-", a})
		}
		return append(out, diffPart{"+", b})
	}
	// lcs[i][j]: the longest common subsequence of x[i:] and y[j:]
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffPart
	add := func(op, w string) {
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += w
			return
		}
		out = append(out, diffPart{op, w})
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			add("=", x[i])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			add("-", x[i])
			i++
		default:
			add("+", y[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		add("-", x[i])
	}
	for ; j < len(y); j++ {
		add("+", y[j])
	}
	return out
}

func splitWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, " \t\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && strings.IndexByte(" \t\n", s[j]) >= 0 {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
