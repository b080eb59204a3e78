package index

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// Staleness (computed for returned memories only): a memory is possibly
// stale when a file it is about changed in commits after its anchor commit,
// or no longer exists. The files are its --path entries, and the paths its
// text mentions that exist in the worktree (server/auth.ts, go.mod). One git
// invocation per distinct anchor commit.

// mentionedPaths returns the path-like words of a text that exist in the worktree.
func mentionedPaths(repo *gitstore.Repo, text string) []string {
	var out []string
	seen := map[string]bool{}
	eachChunk(text, func(c string) {
		if seen[c] || strings.Contains(c, "://") || strings.HasPrefix(strings.ToLower(c), "http") {
			return
		}
		seen[c] = true
		if !strings.Contains(c, "/") && !hasExtension(c) {
			return
		}
		p := strings.TrimPrefix(c, "./")
		if fileExists(repo, p) {
			out = append(out, p)
		}
	})
	return out
}

func hasExtension(c string) bool {
	i := strings.LastIndexByte(c, '.')
	if i <= 0 || i == len(c)-1 || len(c)-i > 6 {
		return false
	}
	return isLetters(c[i+1:])
}

func markStale(ctx context.Context, repo *gitstore.Repo, hits []Hit) {
	if repo == nil || repo.WorkTree == "" {
		return
	}
	type job struct {
		hit      int
		explicit []string
		paths    []string
	}
	byAnchor := map[string][]job{}
	for i := range hits {
		m := hits[i].Memory
		if hits[i].Scope == gitstore.ScopePersonal || hits[i].Scope.Linked() {
			continue // about files of other repositories
		}
		paths := append([]string(nil), m.Paths...)
		for _, p := range mentionedPaths(repo, m.Text) {
			if !contains(paths, p) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			continue
		}
		anchor := ""
		if m.Anchor != nil {
			anchor = m.Anchor.Commit
		}
		byAnchor[anchor] = append(byAnchor[anchor], job{i, m.Paths, paths})
	}
	anchors := make([]string, 0, len(byAnchor))
	for a := range byAnchor {
		anchors = append(anchors, a)
	}
	sort.Strings(anchors)
	for _, anchor := range anchors {
		jobs := byAnchor[anchor]
		var all []string
		for _, j := range jobs {
			for _, p := range j.paths {
				if !contains(all, p) {
					all = append(all, p)
				}
			}
		}
		short := anchor[:min(10, len(anchor))]
		var states map[string]PathState
		if anchor != "" {
			states, _ = PathChanges(ctx, repo, anchor, all)
		}
		for _, j := range jobs {
			var reasons []string
			for _, p := range j.paths {
				st, ok := states[p]
				switch {
				case ok && st.Missing, !ok && contains(j.explicit, p) && !fileExists(repo, p):
					reasons = append(reasons, p+" no longer exists")
				case ok && st.Commits == 1:
					reasons = append(reasons, p+" changed in 1 commit since "+short)
				case ok && st.Commits > 1:
					reasons = append(reasons, fmt.Sprintf("%s changed in %d commits since %s", p, st.Commits, short))
				}
			}
			if len(reasons) > 0 {
				h := &hits[j.hit]
				h.Stale = true
				h.StaleReason = strings.Join(reasons, "; ")
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
