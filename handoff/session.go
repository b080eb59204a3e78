package handoff

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// Session state lives in files under <git dir>/mem/sessions/ (per worktree:
// a session works in one worktree), one set per session id:
//
//	<key>.json     the start marker (Marker), rewritten atomically
//	<key>.shown    ids of memories already shown to the session, one a line
//	<key>.prompts  one byte appended per prompt: counting a prompt does not
//	               rewrite the marker
//	<key>.lock     held while a session note is written
//
// where <key> is the session id when it is a safe file name, else a hash of
// it. Markers older than SessionTTL are removed at the next session start.

// SessionTTL is how long session files are kept after their last change.
const SessionTTL = 30 * 24 * time.Hour

// gitTimeout bounds one git command run for a session.
const gitTimeout = 2 * time.Second

// Marker is what a session started from, and what the hooks have done for it since.
type Marker struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	// Head and Branch were checked out at the start; Head is empty in a
	// repository without commits.
	Head   string `json:"head,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Dirty are the files the worktree was changing at the start; Digest
	// fingerprints their state (status, size and modification time).
	Dirty  []string `json:"dirty,omitempty"`
	Digest string   `json:"digest,omitempty"`
	// MemoryTip is refs/memory/main at the start (or at the last save check).
	MemoryTip string    `json:"memory_tip,omitempty"`
	Started   time.Time `json:"started"`
	// Injected is when session-start last injected memories.
	Injected time.Time `json:"injected,omitzero"`
	// Prompts counts the prompts seen; Reminded is the prompt count at the
	// last reminder to save (or at the last save seen). The marker file
	// holds the prompts counted before the .prompts file existed (by an
	// earlier version); logged are those the .prompts file counts.
	Prompts  int `json:"prompts,omitempty"`
	Reminded int `json:"reminded,omitempty"`
	logged   int
	// Note is the id of the session note; NoteState the code state
	// (HEAD and worktree digest) it describes.
	Note      string `json:"note,omitempty"`
	NoteState string `json:"note_state,omitempty"`
}

// Sessions gives access to the session files of one repository.
type Sessions struct {
	Repo *gitstore.Repo
	Dir  string
}

// OpenSessions returns the session files of repo (<git dir>/mem/sessions).
func OpenSessions(repo *gitstore.Repo) (*Sessions, error) {
	if repo == nil || repo.GitDir == "" {
		return nil, fmt.Errorf("%w: sessions need a repository on disk", memerr.ErrNoRepo)
	}
	return &Sessions{Repo: repo, Dir: repo.Mem().Sessions()}, nil
}

// sessionKey is a file name for a session id.
func sessionKey(id string) string {
	ok := id != "" && len(id) <= 100
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			ok = false
			break
		}
	}
	if ok && !strings.HasPrefix(id, ".") {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "h-" + hex.EncodeToString(sum[:12])
}

func (s *Sessions) path(id, ext string) string {
	return filepath.Join(s.Dir, sessionKey(id)+ext)
}

// Load returns the marker of a session, nil when there is none.
func (s *Sessions) Load(id string) (*Marker, error) {
	data, err := os.ReadFile(s.path(id, ".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: session marker %s: %v", memerr.ErrCorrupt, s.path(id, ".json"), err)
	}
	if st, err := os.Stat(s.path(id, ".prompts")); err == nil {
		m.logged = int(min(st.Size(), math.MaxInt32))
		m.Prompts += m.logged
	}
	return &m, nil
}

// Save writes a marker atomically (lockfile.WriteAtomic).
func (s *Sessions) Save(m *Marker) error {
	stored := *m
	stored.Prompts -= m.logged // counted by the .prompts file
	data, err := json.MarshalIndent(&stored, "", "  ")
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(s.path(m.Session, ".json"), append(data, '\n'), 0o600)
}

// Start records the start of a session: HEAD, branch, worktree status and
// time. A marker that exists already (resume, compact) is kept, so the
// session note covers the whole session; it is returned with existed true.
func (s *Sessions) Start(ctx context.Context, id, agent string, now time.Time) (m *Marker, existed bool, err error) {
	m, existed, err = s.Begin(ctx, id, agent, now)
	if err != nil || existed {
		return m, existed, err
	}
	return m, false, s.Save(m)
}

// Begin is Start without writing a new marker: the caller saves it (Save)
// once it has recorded what it did. A session-start hook writes its
// marker once, with the time of its injection, where writing it first and
// again with that time cost a second file created and renamed into place.
func (s *Sessions) Begin(ctx context.Context, id, agent string, now time.Time) (m *Marker, existed bool, err error) {
	if id == "" {
		return nil, false, fmt.Errorf("%w: the hook payload has no session id", memerr.ErrInvalid)
	}
	if old, err := s.Load(id); err == nil && old != nil {
		return old, true, nil
	}
	s.prune(now)
	head := s.Repo.Head()
	dirty, digest := s.worktreeState(ctx)
	return &Marker{
		Session: id, Agent: agent, Head: head.Commit, Branch: head.Branch,
		Dirty: dirty, Digest: digest, MemoryTip: s.memoryTip(), Started: now.UTC(),
	}, false, nil
}

// pruneEvery is how often a session start looks for expired session files:
// listing the folder costs a stat per file, paid by the hook of every new
// session otherwise, and files expire only after SessionTTL anyway.
const pruneEvery = time.Hour

// prune removes session files not touched for SessionTTL, at most once per
// pruneEvery (a stamp file's time says when it last ran).
func (s *Sessions) prune(now time.Time) {
	stamp := filepath.Join(s.Dir, ".pruned")
	if st, err := os.Stat(stamp); err == nil && now.Sub(st.ModTime()) < pruneEvery && !st.ModTime().After(now) {
		return
	}
	if f, err := os.Create(stamp); err == nil {
		f.Close()
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == ".pruned" {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > SessionTTL {
			os.Remove(filepath.Join(s.Dir, e.Name()))
		}
	}
}

func (s *Sessions) memoryTip() string {
	h, err := gitstore.NewStore(s.Repo, gitstore.RefMain, gitstore.ScopeProject).Tip()
	if err != nil || h.IsZero() {
		return ""
	}
	return h.String()
}

// Shown returns the ids of memories already shown to a session.
func (s *Sessions) Shown(id string) map[string]bool {
	out := map[string]bool{}
	f, err := os.Open(s.path(id, ".shown"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out[l] = true
		}
	}
	return out
}

// MarkShown records ids as shown to a session.
func (s *Sessions) MarkShown(id string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(s.path(id, ".shown"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(strings.Join(ids, "\n") + "\n")
	return errors.Join(werr, f.Close())
}

// git runs git in the worktree (gitstore.Repo.Git) within the session's
// shorter budget.
func (s *Sessions) git(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	return s.Repo.Git(ctx, args...)
}

// worktreeState lists the files the worktree is changing and fingerprints
// their state: status code, size and modification time of each.
func (s *Sessions) worktreeState(ctx context.Context) (dirty []string, digest string) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	data, err := s.Repo.WorktreeStatus(ctx)
	if err != nil {
		return nil, ""
	}
	h := sha256.New()
	for _, rec := range strings.Split(string(data), "\x00") {
		if len(rec) <= 3 {
			continue
		}
		p := rec[3:]
		dirty = append(dirty, p)
		fmt.Fprintf(h, "%s\x00", rec)
		if st, err := os.Lstat(filepath.Join(s.Repo.WorkTree, filepath.FromSlash(p))); err == nil {
			fmt.Fprintf(h, "%d %d\x00", st.Size(), st.ModTime().UnixNano())
		}
	}
	sort.Strings(dirty)
	if len(dirty) == 0 {
		return nil, ""
	}
	return dirty, hex.EncodeToString(h.Sum(nil)[:12])
}

// RemindEvery is how many prompts pass without a saved memory before the
// stop hook reminds the agent to save what it learned (at most once per
// that many prompts).
const RemindEvery = 5

// CountPrompt records one prompt of the session.
func (s *Sessions) CountPrompt(m *Marker) error {
	f, err := os.OpenFile(s.path(m.Session, ".prompts"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte{'.'})
	if err := errors.Join(werr, f.Close()); err != nil {
		return err
	}
	m.Prompts++
	m.logged++
	return nil
}

// Remind reports whether the agent should be reminded to save what it
// learned: RemindEvery prompts went by since the last reminder, and no
// memory was saved to refs/memory/main in the meantime (the session's own
// note and handoffs aside). A save seen restarts the count.
func (s *Sessions) Remind(ctx context.Context, m *Marker) (bool, error) {
	tip := s.memoryTip()
	if tip != m.MemoryTip {
		saved, err := s.savedSince(ctx, m, tip)
		if err != nil {
			return false, err
		}
		m.MemoryTip = tip
		if saved {
			m.Reminded = m.Prompts
			return false, s.Save(m)
		}
	}
	if m.Prompts-m.Reminded < RemindEvery {
		return false, s.Save(m)
	}
	m.Reminded = m.Prompts
	return true, s.Save(m)
}

// savedSince reports whether a memory other than session notes and
// handoffs was added or changed between the marker's memory tip and tip.
func (s *Sessions) savedSince(ctx context.Context, m *Marker, tip string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	from, ok1 := gitstore.HashOf(m.MemoryTip)
	to, ok2 := gitstore.HashOf(tip)
	if !ok1 || !ok2 {
		return true, nil
	}
	st := gitstore.NewStore(s.Repo, gitstore.RefMain, gitstore.ScopeProject)
	changed, _, err := st.Diff(from, to)
	if err != nil {
		return false, err
	}
	if len(changed) == 0 {
		return false, nil
	}
	rd, err := st.Read()
	if err != nil {
		return false, err
	}
	for _, id := range changed {
		if id == m.Note {
			continue
		}
		mem, err := rd.Get(id)
		if err != nil {
			continue
		}
		if mem.Type != gitstore.TypeSession && mem.Type != gitstore.TypeHandoff {
			return true, nil
		}
	}
	return false, nil
}
