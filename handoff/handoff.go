package handoff

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

// BranchTagPrefix starts the tag that names the branch a handoff (or a
// session note) belongs to: "branch:feature/refunds".
const BranchTagPrefix = "branch:"

// HandoffInput is what a session leaves for the next one on a branch.
type HandoffInput struct {
	// Done is what this session finished; Next is what the next one should do.
	Done, Next string
	// Warnings are traps the next session should know about.
	Warnings []string
	// Branch is the branch the handoff is for; empty means the checked-out one.
	Branch string
}

// BranchTag is the tag naming a branch: lower-cased, with characters a tag
// cannot hold replaced by '-'.
func BranchTag(branch string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(branch) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.:/", r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	t := BranchTagPrefix + b.String()
	if len(t) > 64 {
		t = t[:64]
	}
	return t
}

// HandoffText renders a handoff's text: "Done: …", "Next: …" and one
// "Warning: …" line per warning, leaving out what is empty.
func HandoffText(in HandoffInput) string {
	var lines []string
	if s := strings.TrimSpace(in.Done); s != "" {
		lines = append(lines, "Done: "+s)
	}
	if s := strings.TrimSpace(in.Next); s != "" {
		lines = append(lines, "Next: "+s)
	}
	for _, w := range in.Warnings {
		if s := strings.TrimSpace(w); s != "" {
			lines = append(lines, "Warning: "+s)
		}
	}
	return strings.Join(lines, "\n")
}

// Save stores a handoff for a branch on refs/memory/main: a memory of type
// handoff tagged with the branch (BranchTag) and anchored to HEAD. It
// supersedes the branch's previous handoff, so each branch has one current
// handoff and history keeps the others. An empty handoff (no done, next or
// warning) is refused with memerr.ErrInvalid; outside a repository it
// fails with memerr.ErrNoRepo. acc is how the caller's process writes
// the recall snapshot, refreshed after the write.
func Save(ctx context.Context, set *gitstore.Set, w gitstore.Writer, in HandoffInput, acc index.Access) (*gitstore.Memory, error) {
	if set == nil || set.Repo == nil {
		return nil, fmt.Errorf("%w: a handoff belongs to a repository's branch; run it inside a repository", memerr.ErrNoRepo)
	}
	text := HandoffText(in)
	if text == "" {
		return nil, fmt.Errorf("%w: the handoff is empty; say what was done (--done), what comes next (--next) or what to watch out for (--warn)", memerr.ErrInvalid)
	}
	head := set.Repo.Head()
	branch := in.Branch
	if branch == "" {
		branch = head.Branch
	}
	anchor := &gitstore.Anchor{Commit: head.Commit, Branch: branch}
	if branch != head.Branch {
		anchor.Commit = ""
	}
	tags := []string{"handoff"}
	if branch != "" {
		tags = append(tags, BranchTag(branch))
	}
	prev, err := Latest(ctx, set, branch)
	if err != nil {
		return nil, err
	}
	n := gitstore.NewMemory{
		Type: gitstore.TypeHandoff, Text: text, Tags: tags, Source: gitstore.SourceInferred,
		Anchor: anchor,
	}
	if prev != nil { // Handoffs reads refs/memory/main only
		n.Supersedes = prev.ID
	}
	st := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject)
	m, err := st.Add(ctx, w, n)
	if err == nil {
		// the next session's hook then finds the recall snapshot current
		_ = acc.Refresh(ctx, set)
	}
	return m, err
}

// Latest returns the newest current handoff for a branch (the checked-out
// one when branch is empty) from refs/memory/main, or nil, nil when there is
// none.
func Latest(ctx context.Context, set *gitstore.Set, branch string) (*gitstore.Memory, error) {
	hs, err := Handoffs(ctx, set)
	if err != nil {
		return nil, err
	}
	if branch == "" && set.Repo != nil {
		branch = set.Repo.Head().Branch
	}
	for _, m := range hs {
		if HandoffBranch(m) == branch {
			return m, nil
		}
	}
	return nil, nil
}

// Handoffs returns the current handoffs of refs/memory/main, newest first.
func Handoffs(ctx context.Context, set *gitstore.Set) ([]*gitstore.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if set == nil || set.Repo == nil {
		return nil, nil
	}
	standing, _, _, err := startMemories(ctx, set, set.Repo.Now())
	if err != nil {
		return nil, err
	}
	var ms []*gitstore.Memory
	for _, e := range standing {
		if e.Scope == gitstore.ScopeProject && e.M.Type == gitstore.TypeHandoff {
			ms = append(ms, e.M)
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Created.After(ms[j].Created) })
	return ms, nil
}

// HandoffBranch is the branch a handoff or session note belongs to: its
// anchor's branch, else the branch named by its tag.
func HandoffBranch(m *gitstore.Memory) string {
	if m.Anchor != nil && m.Anchor.Branch != "" {
		return m.Anchor.Branch
	}
	for _, t := range m.Tags {
		if b, ok := strings.CutPrefix(t, BranchTagPrefix); ok {
			return b
		}
	}
	return ""
}
