package handoff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// Session note limits: the most commits and files listed by name.
const (
	noteMaxCommits = 20
	noteMaxFiles   = 30
	notePaths      = 50
)

// emptyTree is git's empty tree (SHA-1), the base of a session that started
// before the first commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Activity is what a session did, from git: compared with its start marker.
type Activity struct {
	// From and To are HEAD at the start and now (empty: no commit yet).
	From, To string
	Branch   string
	// Commits are "<short hash> <subject>" of the commits made, newest first;
	// CommitCount counts them all.
	Commits     []string
	CommitCount int
	// Changed are the files the commits changed; Dirty the files still
	// uncommitted now.
	Changed, Dirty []string
	// State identifies the code state described (HEAD and worktree digest).
	State string
}

// Empty reports that nothing happened: the same HEAD and the same worktree.
func (a *Activity) Empty(m *Marker) bool {
	return a.To == m.Head && a.State == m.Head+":"+m.Digest
}

// current is HEAD and the worktree now, without the commits made.
func (s *Sessions) current(ctx context.Context, m *Marker) *Activity {
	head := s.Repo.Head()
	a := &Activity{From: m.Head, To: head.Commit, Branch: head.Branch}
	var digest string
	a.Dirty, digest = s.worktreeState(ctx)
	a.State = head.Commit + ":" + digest
	return a
}

// commits fills in the commits made and the files they changed.
func (s *Sessions) commits(ctx context.Context, a *Activity) error {
	if a.To == "" || a.To == a.From {
		return nil
	}
	rng := a.To
	base := emptyTree
	if a.From != "" {
		rng = a.From + ".." + a.To
		base = a.From
	}
	out, err := s.git(ctx, "log", "--no-color", "--format=%h %s", rng)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// a subject with a control character (CR, ESC) would make the note
		// text refused: show it as a space
		l = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, l)
		if l = strings.TrimSpace(l); l != "" {
			a.CommitCount++
			if len(a.Commits) < noteMaxCommits {
				a.Commits = append(a.Commits, l)
			}
		}
	}
	// -z: without it git C-quotes a name with a quote or a byte outside
	// ASCII ("\"api_key\": …"), which both mangles the name in the note and
	// hides a credential in it from the secret rules
	out, err = s.git(ctx, "diff", "--no-color", "--no-renames", "--name-only", "-z", base, a.To)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(out), "\x00") {
		if l != "" {
			a.Changed = append(a.Changed, l)
		}
	}
	return nil
}

// NoteText renders a session note.
func NoteText(m *Marker, a *Activity) string {
	var b strings.Builder
	who := m.Agent
	if who == "" {
		who = "an agent"
	}
	fmt.Fprintf(&b, "Session %s by %s", shortSession(m.Session), who)
	if a.Branch != "" {
		fmt.Fprintf(&b, " on branch %s", a.Branch)
	}
	if a.From != a.To {
		fmt.Fprintf(&b, " (commits %s..%s)", shortHash(a.From), shortHash(a.To))
	}
	b.WriteString(":")
	if a.CommitCount > 0 {
		fmt.Fprintf(&b, "\nCommits made (%d):", a.CommitCount)
		for _, c := range a.Commits {
			b.WriteString("\n- " + c)
		}
		if a.CommitCount > len(a.Commits) {
			fmt.Fprintf(&b, "\n- … and %d more", a.CommitCount-len(a.Commits))
		}
	}
	if len(a.Changed) > 0 {
		b.WriteString("\nFiles changed: " + listCut(a.Changed, noteMaxFiles))
	}
	if len(a.Dirty) > 0 {
		b.WriteString("\nStill uncommitted: " + listCut(a.Dirty, noteMaxFiles))
	} else if a.CommitCount > 0 {
		b.WriteString("\nWorktree clean at the end.")
	}
	return b.String()
}

func listCut(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

func shortHash(h string) string {
	if h == "" {
		return "(none)"
	}
	return h[:min(len(h), 7)]
}

func shortSession(id string) string {
	if len(id) > 12 {
		return id[:8]
	}
	return id
}

// EndOptions say who ends a session.
type EndOptions struct {
	Writer gitstore.Writer
	// Subagent, when set, is the agent type of a subagent the hook ran in;
	// the note is tagged with it.
	Subagent string
	Now      time.Time
}

// End writes the session note of a session: what it did since its start
// marker (commits with subjects and range, files changed, files still
// uncommitted), one memory of type session on refs/memory/main tagged with
// the branch. Nothing is written when nothing happened, or when the note
// already describes the current state, so calling it again saves nothing; if
// more happened since the note was written, the note is revised (one note
// per session). It returns the note (nil when nothing was written) and fails
// with memerr.ErrNotFound when the session has no start marker.
func (s *Sessions) End(ctx context.Context, id string, o EndOptions) (*gitstore.Memory, error) {
	m, err := s.Load(id)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%w: session %s has no start marker (its session-start hook did not run)", memerr.ErrNotFound, id)
	}
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if m, err = s.Load(id); err != nil || m == nil {
		return nil, err
	}
	a := s.current(ctx, m)
	if a.Empty(m) || m.NoteState == a.State {
		return nil, nil
	}
	if err := s.commits(ctx, a); err != nil {
		return nil, err
	}
	// a file whose name holds a credential is left out of the note: its
	// text and paths are committed and shared
	a.Changed, a.Dirty = withoutSecrets(a.Changed), withoutSecrets(a.Dirty)
	text := NoteText(m, a)
	st := gitstore.NewStore(s.Repo, gitstore.RefMain, gitstore.ScopeProject)
	var note *gitstore.Memory
	if m.Note != "" {
		note, err = st.Revise(ctx, o.Writer, m.Note, text, gitstore.WithKeys(noteKeys(a)))
		switch {
		case errors.Is(err, memerr.ErrNotFound) || errors.Is(err, memerr.ErrRetired):
			m.Note, err = "", nil // the note was forgotten or superseded: write a new one
		case errors.Is(err, memerr.ErrInvalid):
			err = nil // same text (only uncommitted content changed)
		}
		if err != nil {
			return nil, err
		}
	}
	if m.Note == "" {
		tags := []string{"session-note"}
		if a.Branch != "" {
			tags = append(tags, BranchTag(a.Branch))
		}
		if o.Subagent != "" {
			tags = append(tags, SubagentTag(o.Subagent))
		}
		paths := append(append([]string(nil), a.Changed...), a.Dirty...)
		if len(paths) > notePaths {
			paths = paths[:notePaths]
		}
		add := func() (*gitstore.Memory, error) {
			return st.Add(ctx, o.Writer, gitstore.NewMemory{
				Type: gitstore.TypeSession, Text: NoteText(m, a), Tags: tags, Paths: paths, Keys: noteKeys(a),
				Source: gitstore.SourceVerified, Anchor: &gitstore.Anchor{Commit: a.To, Branch: a.Branch},
			})
		}
		note, err = add()
		if errors.Is(err, memerr.ErrSecret) {
			// a commit subject looks like a credential: leave the subjects out
			a.Commits = nil
			note, err = add()
		}
		if errors.Is(err, memerr.ErrSecret) {
			// each file name passed alone, but their list does not: leave the
			// names out rather than lose the note
			a.Changed, a.Dirty, paths = nil, nil, nil
			note, err = add()
		}
		if err != nil {
			return nil, err
		}
	}
	if note != nil {
		m.Note = note.ID
	}
	m.NoteState = a.State
	return note, s.Save(m)
}

// lock takes the session's note lock, waiting for it as long as ctx lets
// it (a hook's deadline, or the background finish of a note a hook had no
// time to write). A lock whose hook process is gone
// (lockfile.Abandoned) is broken at once, one older than 10 s too (a
// killed hook of another machine, or of an older version).
func (s *Sessions) lock(ctx context.Context, id string) (func(), error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	p := s.path(id, ".lock")
	wait := time.NewTicker(25 * time.Millisecond)
	defer wait.Stop()
	for {
		f, release, err := lockfile.Create(p)
		if err == nil {
			f.Close()
			return func() { os.Remove(p); release() }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(p); err == nil && (time.Since(st.ModTime()) > 10*time.Second || lockfile.Abandoned(p)) {
			os.Remove(p)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: the session note of %s is being written by another hook", memerr.ErrBusy, id)
		case <-wait.C:
		}
	}
}

// withoutSecrets drops the file names the secret rules flag.
func withoutSecrets(files []string) []string {
	var out []string
	for _, f := range files {
		if gitstore.CheckSecrets(f) == nil {
			out = append(out, f)
		}
	}
	return out
}
