package gitstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/secret"
)

// Memory refs.
const (
	RefMain    = "refs/memory/main"
	RefPrivate = "refs/memory/private"
)

// Scope names which store a memory lives in.
type Scope string

// Scopes.
const (
	ScopeProject  Scope = "project"  // refs/memory/main of the repository: shared when pushed
	ScopePrivate  Scope = "private"  // refs/memory/private: never pushed
	ScopePersonal Scope = "personal" // the personal store: this user, every project
)

// ScopeLinkedPrefix starts the scope of a linked store: "org:NAME".
const ScopeLinkedPrefix = "org:"

// Linked reports whether the scope is a linked store's ("org:NAME").
func (s Scope) Linked() bool { return strings.HasPrefix(string(s), ScopeLinkedPrefix) }

// maxAttempts bounds how often a write is rebuilt on a ref that moved under it.
const maxAttempts = 200

// Store is one memory ref of one repository.
type Store struct {
	Repo  *Repo
	Ref   string
	Scope Scope
	// ReadOnly refuses every write (a linked store made without write):
	// Update fails with a *memerr.ReadOnlyError before anything is written.
	ReadOnly bool
	// IDs, when set, answers from a list of the store's memory ids at tip
	// without reading its trees (a linked store's local copy keeps the
	// list of what its last refresh fetched): near returns the ids just
	// before and after an id in order (not the id itself). ok is false when
	// there is no list for that tip, and the trees are read. Set.ShortIDs
	// uses it.
	IDs func(tip Hash) (near func(id string) ([]string, error), ok bool)
}

// NewStore returns the store on ref of repo.
func NewStore(repo *Repo, ref string, scope Scope) *Store {
	return &Store{Repo: repo, Ref: ref, Scope: scope}
}

// Tip returns the commit the memory ref points to; zero for an empty store.
func (s *Store) Tip() (Hash, error) { return s.Repo.refs.read(s.Ref) }

// Writer says who makes a change: recorded in the commit and the memory.
type Writer struct {
	Agent   string
	Session string
	// Subagent names a subagent of Agent ("<agent_type>:<agent_id>" from a hook
	// payload); its memories are not injected at session start by default.
	Subagent string
}

// Check refuses a writer whose names could not be stored or would carry a
// credential into every commit and memory it writes: they come from a
// payload, an MCP client's name, a flag or git config, none of which is
// trusted. Every write checks its writer; a caller that can fall back to
// another name checks first.
func (w Writer) Check() error {
	for _, f := range [...]struct{ name, v string }{{"agent", w.Agent}, {"subagent", w.Subagent}, {"session", w.Session}} {
		if f.v == "" {
			continue
		}
		if err := checkField(f.name, f.v); err != nil {
			return fmt.Errorf("%w: %w", memerr.ErrWriter, err)
		}
		err := CheckSecrets(f.v)
		if fd, ok := secret.URLWithPassword(f.v); ok && err == nil {
			err = &memerr.SecretError{Findings: []secret.Finding{fd}}
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", memerr.ErrWriter, f.name, err)
		}
	}
	return nil
}

// Tx is one change being built on the current tip. A write function may read
// memories and stage new versions; if the ref moves before the commit lands,
// the function runs again on the new tip.
type Tx struct {
	snap    *snapshot
	staged  map[string]*Memory // nil value: delete
	now     time.Time
	author  string
	subject string
	op      string
	ids     []string
	extra   []string // extra trailers
	batch   bool     // many memories: the subject names no single id
	// commitAuthor, when set, authors the commit instead of the
	// repository's identity (an accepted proposal's proposer)
	commitAuthor *ident
	// committer, when set, commits it (the reviewer who accepted it)
	committer *ident
}

// get returns the memory with the full id as the transaction sees it.
func (tx *Tx) get(id string) (*Memory, error) {
	if m, ok := tx.staged[id]; ok {
		if m == nil {
			return nil, fmt.Errorf("%w: no memory %s", memerr.ErrNotFound, id)
		}
		c := *m
		return &c, nil
	}
	return tx.snap.get(id)
}

// Put stages a new version of m.
func (tx *Tx) Put(m *Memory) { c := *m; tx.staged[m.ID] = &c }

// delete stages the removal of a memory from the tree.
func (tx *Tx) delete(id string) { tx.staged[id] = nil }

// Now is the time of this change.
func (tx *Tx) Now() time.Time { return tx.now }

// Describe sets the commit's op and subject text and the ids it is about.
func (tx *Tx) Describe(op, subject string, ids ...string) {
	tx.op, tx.subject, tx.ids = op, subject, ids
}

// Trailer adds a "Key: value" trailer to the commit message.
func (tx *Tx) Trailer(key, value string) { tx.extra = append(tx.extra, key+": "+value) }

// Update runs fn on the current tip and commits what it staged, moving the ref
// with compare-and-swap. When another writer moved the ref first, fn runs again
// on the new tip (bounded by maxAttempts). It returns the new commit; when fn
// stages nothing, the tip is returned unchanged.
func (s *Store) Update(ctx context.Context, w Writer, fn func(tx *Tx) error) (Hash, error) {
	if s.ReadOnly {
		return zeroHash, &memerr.ReadOnlyError{Scope: string(s.Scope)}
	}
	if err := w.Check(); err != nil {
		return zeroHash, err
	}
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		// a write starts only when it can finish before ctx's deadline (a
		// hook's): objects, then the ref's lock
		if err := checkBudget(ctx); err != nil {
			return zeroHash, err
		}
		tip, err := s.Tip()
		if err != nil {
			return zeroHash, err
		}
		commit, err := s.attempt(tip, w, fn)
		if err == nil && commit == tip {
			return tip, nil
		}
		if err == nil {
			if err := checkBudget(ctx); err != nil {
				return zeroHash, err // the objects stay unreachable; the ref is untouched
			}
			err = s.Repo.refs.update(s.Ref, commit, tip)
			if err == nil {
				return commit, nil
			}
		}
		switch {
		case errors.Is(err, errRefMoved):
		case errors.Is(err, memerr.ErrCorrupt) && errors.Is(err, gitobj.ErrNotFound):
			// A concurrent git gc may have repacked objects this process had
			// listed as loose; reopen the object database and try again.
			s.Repo.reopenObjects()
		default:
			return zeroHash, err
		}
		lastErr = err
		time.Sleep(time.Duration(rand.IntN(1000*(1+min(attempt, 20)))) * time.Microsecond)
	}
	return zeroHash, fmt.Errorf("%w: gave up after %d attempts (%v); try again", memerr.ErrBusy, maxAttempts, lastErr)
}

func (s *Store) attempt(tip Hash, w Writer, fn func(tx *Tx) error) (Hash, error) {
	snap, err := s.Repo.snapshotAt(tip)
	if err != nil {
		return zeroHash, err
	}
	tx := &Tx{snap: snap, staged: map[string]*Memory{}, now: s.Repo.Now().UTC().Truncate(time.Second), author: s.Repo.Author()}
	if err := fn(tx); err != nil {
		return zeroHash, err
	}
	if len(tx.staged) == 0 {
		return tip, nil
	}
	changes := map[string][]byte{}
	for id, m := range tx.staged {
		if m == nil {
			changes[id] = nil
			continue
		}
		// Never write a document that a reader would refuse.
		if !ValidID(m.ID) || m.ID != id {
			return zeroHash, fmt.Errorf("%w: memory id %s is malformed", memerr.ErrInvalid, quoteShort(m.ID))
		}
		if err := m.check(); err != nil {
			return zeroHash, err
		}
		if changes[id], err = m.Encode(); err != nil {
			return zeroHash, err
		}
	}
	if len(changes) >= packAtLeast {
		snap.pack = s.Repo.packSink()
	}
	tree, err := snap.buildTree(changes)
	if err != nil {
		return zeroHash, err
	}
	var parents []Hash
	if !tip.IsZero() {
		parents = append(parents, tip)
	}
	o, err := s.Repo.commitObjectAs(tree, parents, commitMessage(tx, w), tx.now, tx.commitAuthor, tx.committer)
	if err != nil {
		return zeroHash, err
	}
	commit, err := snap.put(o)
	if err != nil || snap.pack == nil {
		return commit, err
	}
	return commit, s.Repo.writePack(snap.pack)
}

func (r *Repo) writeCommit(tree Hash, parents []Hash, msg string, when time.Time) (Hash, error) {
	o, err := r.commitObject(tree, parents, msg, when)
	if err != nil {
		return zeroHash, err
	}
	return r.writeObject(o)
}

func (r *Repo) commitObject(tree Hash, parents []Hash, msg string, when time.Time) (*gitobj.Object, error) {
	return r.commitObjectAs(tree, parents, msg, when, nil, nil)
}

// Commit trailers.
const (
	trailerID       = "Memory-Id"
	trailerOp       = "Memory-Op"
	trailerAgent    = "Agent"
	trailerSession  = "Session"
	trailerSubagent = "Subagent"
)

// commitMessage renders "mem: <op> <short id> <subject>" and the trailers.
func commitMessage(tx *Tx, w Writer) string {
	var b strings.Builder
	b.WriteString("mem: " + tx.op)
	if len(tx.ids) > 0 && !tx.batch {
		b.WriteString(" " + Clip(tx.ids[0], MinShownPrefix))
	}
	if tx.subject != "" {
		b.WriteString(" " + Summary(tx.subject, 72))
	}
	b.WriteString("\n\n")
	for _, id := range tx.ids {
		b.WriteString(trailerID + ": " + id + "\n")
	}
	b.WriteString(trailerOp + ": " + tx.op + "\n")
	if w.Agent != "" {
		b.WriteString(trailerAgent + ": " + oneLine(w.Agent) + "\n")
	}
	if w.Subagent != "" {
		b.WriteString(trailerSubagent + ": " + oneLine(w.Subagent) + "\n")
	}
	if w.Session != "" {
		b.WriteString(trailerSession + ": " + oneLine(w.Session) + "\n")
	}
	for _, t := range tx.extra {
		b.WriteString(oneLine(t) + "\n")
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Read returns the snapshot reader of the current tip.
func (s *Store) Read() (*Reader, error) {
	tip, err := s.Tip()
	if err != nil {
		return nil, err
	}
	return s.ReadAt(tip)
}

// ReadAt returns a reader of the store as of one commit of the memory ref.
func (s *Store) ReadAt(commit Hash) (*Reader, error) {
	snap, err := s.Repo.snapshotAt(commit)
	if err != nil {
		return nil, err
	}
	return &Reader{snap: snap, store: s}, nil
}

// Reader reads one snapshot of a store.
type Reader struct {
	snap  *snapshot
	store *Store
}

// Get reads the memory with the full id.
func (rd *Reader) Get(id string) (*Memory, error) {
	m, err := rd.snap.get(id)
	if err != nil {
		return nil, err
	}
	m.scope = rd.store.Scope
	return m, nil
}

// All reads every memory in the snapshot, current and retired, in id order.
func (rd *Reader) All() ([]*Memory, error) {
	ms, err := rd.snap.all()
	for _, m := range ms {
		m.scope = rd.store.Scope
	}
	return ms, err
}

// BlobHashes returns the document hash of every memory, by id.
func (rd *Reader) BlobHashes() (map[string]Hash, error) {
	out := map[string]Hash{}
	err := rd.snap.entries(func(id string, h Hash) error { out[id] = h; return nil })
	return out, err
}

// resolve returns the full ids starting with prefix (lower-cased, at least
// MinPrefixLen hex digits).
func (rd *Reader) resolve(prefix string) ([]string, error) {
	p, err := NormalizePrefix(prefix)
	if err != nil {
		return nil, err
	}
	return rd.snap.idsWithPrefix(p)
}

// NormalizePrefix is an id or id prefix as ids are kept (lower-case, trimmed),
// or a *memerr.InvalidInputError of memerr.FieldID when it is not one.
func NormalizePrefix(prefix string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if len(p) < MinPrefixLen || len(p) > IDHexLen || !isHex(p) {
		return "", &memerr.InvalidInputError{Field: memerr.FieldID, Value: prefix, Reason: fmt.Sprintf("%q is not a memory id; give at least %d hex digits of an id", prefix, MinPrefixLen)}
	}
	return p, nil
}

// ShortID returns the shortest prefix of id, at least MinShownPrefix long, that
// no other id in the snapshot shares.
func (rd *Reader) ShortID(id string) string {
	ids, _ := rd.snap.idsWithPrefix(Clip(id, 2))
	return ShortestUnique(id, ids)
}

// ShortestUnique returns the shortest prefix of id (at least MinShownPrefix)
// not shared with any of others.
func ShortestUnique(id string, others []string) string {
	n := MinShownPrefix
	for _, o := range others {
		if o == id {
			continue
		}
		common := 0
		for common < len(o) && common < len(id) && o[common] == id[common] {
			common++
		}
		if common+1 > n {
			n = common + 1
		}
	}
	return id[:min(n, len(id))]
}

// sortMemories orders memories newest first, then by id.
func sortMemories(ms []*Memory) {
	sort.SliceStable(ms, func(i, j int) bool {
		if !ms[i].Created.Equal(ms[j].Created) {
			return ms[i].Created.After(ms[j].Created)
		}
		return ms[i].ID < ms[j].ID
	})
}
