package gitrefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// Hash is the object a ref names.
type Hash = gitobj.Hash

var zeroHash Hash

// Error is a ref that cannot be read as git reads it (Locked false: the
// repository is damaged) or whose lock another writer kept past the
// timeout (Locked true); Msg says which ref and what to do.
type Error struct {
	Locked bool
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// ErrMoved: the ref no longer holds the value the caller built on.
var ErrMoved = errors.New("ref moved")

// DB reads and updates refs. Updates are compare-and-swap: the ref moves to
// newHash only if it still holds oldHash (zero meaning "absent").
type DB interface {
	Read(name string) (Hash, error)
	Update(name string, newHash, oldHash Hash) error
	List(prefix string) (map[string]Hash, error)
}

// Disk implements git's files ref backend: loose refs under the common dir,
// then packed-refs. Updates follow git's lock protocol (create <ref>.lock with
// O_EXCL, verify the old value, write, fsync, rename), so they interoperate with
// every git command; go-git's own CheckAndSetReference rewrites refs in place
// and loses concurrent writes (docs/architecture.md, storage).
type Disk struct {
	commonDir   string
	LockTimeout time.Duration // how long to wait for another writer's lock
	staleAfter  time.Duration // a lock older than this belongs to a dead writer
}

// OpenDisk is the ref database of the repository whose common git
// directory is commonDir.
func OpenDisk(commonDir string) *Disk {
	return &Disk{commonDir: commonDir, LockTimeout: 10 * time.Second, staleAfter: 10 * time.Second}
}

func (d *Disk) refPath(name string) string {
	return filepath.Join(d.commonDir, filepath.FromSlash(name))
}

// Read implements DB: the commit a ref names, following symbolic refs; the
// zero hash when it does not exist.
func (d *Disk) Read(name string) (Hash, error) {
	return d.resolve(name, 0)
}

func (d *Disk) resolve(name string, depth int) (Hash, error) {
	if depth > 5 {
		return zeroHash, &Error{Msg: fmt.Sprintf("symbolic ref %s nests too deeply", name)}
	}
	data, err := os.ReadFile(d.refPath(name))
	switch {
	case err == nil:
		target, h, ok := parseLooseRef(data)
		switch {
		case !ok:
			return zeroHash, &Error{Msg: fmt.Sprintf("ref %s holds %q, not a commit id; run git fsck", name, summary(strings.TrimSpace(string(data)), 50))}
		case target != "":
			if !strings.HasPrefix(target, "refs/") || !validRefName(target) {
				return zeroHash, &Error{Msg: fmt.Sprintf("ref %s points at %q, not a ref; run git fsck", name, summary(target, 50))}
			}
			return d.resolve(target, depth+1)
		}
		return h, nil
	case errors.Is(err, os.ErrNotExist), isNotDir(err):
		packed, err := d.packed()
		if err != nil {
			return zeroHash, err
		}
		return packed[name], nil
	default:
		return zeroHash, err
	}
}

// validRefName applies git's rules for a ref's name (git check-ref-format):
// a symbolic ref pointing at a name git refuses is broken to git, and so to
// git-mem, even where the file system would find a file by it ("refs//x").
func validRefName(name string) bool {
	if name == "" || name == "@" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return false
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

func isNotDir(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// packed reads packed-refs; a missing file means no packed refs.
func (d *Disk) packed() (map[string]Hash, error) {
	data, err := os.ReadFile(filepath.Join(d.commonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Hash{}, nil
	}
	if err != nil {
		return nil, err
	}
	refs := map[string]Hash{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if h, valid := gitobj.ParseHash(hash); ok && valid {
			refs[name] = h
		}
	}
	return refs, sc.Err()
}

// List implements DB: the refs under prefix, loose and packed.
func (d *Disk) List(prefix string) (map[string]Hash, error) {
	out, err := d.packed()
	if err != nil {
		return nil, err
	}
	for name := range out {
		if !strings.HasPrefix(name, prefix) {
			delete(out, name)
		}
	}
	root := d.refPath(strings.TrimSuffix(prefix, "/"))
	err = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if e.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(d.commonDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		h, err := d.Read(name)
		if err == nil && !h.IsZero() {
			out[name] = h
		}
		return nil
	})
	return out, err
}

// Update implements DB, by git's lock protocol.
func (d *Disk) Update(name string, newHash, oldHash Hash) error {
	path := d.refPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	lock, release, err := d.lock(path)
	if err != nil {
		return err
	}
	lockPath := lock.Name()
	committed := false
	defer func() {
		if !committed {
			lock.Close()
			os.Remove(lockPath)
		}
		release()
	}()
	cur, err := d.Read(name)
	if err != nil {
		return err
	}
	if cur != oldHash {
		return ErrMoved
	}
	if newHash.IsZero() {
		if err := d.removePacked(name); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	// the holder line gives way to the value, as git's protocol wants
	if err := lock.Truncate(0); err != nil {
		return err
	}
	if _, err := lock.WriteAt([]byte(newHash.String()+"\n"), 0); err != nil {
		return err
	}
	if err := lock.Sync(); err != nil {
		return err
	}
	if err := lock.Close(); err != nil {
		return err
	}
	if err := os.Rename(lockPath, path); err != nil {
		return err
	}
	committed = true
	return nil
}

// lock creates path+".lock" exclusively (see lockfile.Create), waiting for another
// writer to finish and breaking a lock left behind by a writer that died.
// release must be called once the lock file is renamed or removed.
func (d *Disk) lock(path string) (f *os.File, release func(), err error) {
	lockPath := path + ".lock"
	deadline := time.Now().Add(d.LockTimeout)
	for {
		f, release, err := lockfile.Create(lockPath)
		if err == nil {
			return f, release, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, nil, err
		}
		d.breakStaleLock(lockPath)
		if time.Now().After(deadline) {
			return nil, nil, &Error{Locked: true, Msg: fmt.Sprintf("%s stayed locked for %s; if no git or git-mem process is running, remove %s", filepath.Base(path), d.LockTimeout, lockPath)}
		}
		time.Sleep(time.Duration(500+rand.IntN(2500)) * time.Microsecond)
	}
}

// breakStaleLock removes a lock file whose git-mem holder is gone
// (lockfile.Abandoned), or older than staleAfter: a live writer holds a ref lock
// for milliseconds, so an old lock was left by a killed process. The lock is
// first renamed aside and checked to be the same file, so a fresh lock taken
// in between is put back rather than removed.
func (d *Disk) breakStaleLock(lockPath string) {
	st, err := os.Stat(lockPath)
	if err != nil || (time.Since(st.ModTime()) < d.staleAfter && !lockfile.Abandoned(lockPath)) {
		return
	}
	aside := fmt.Sprintf("%s.stale-%d-%d", lockPath, os.Getpid(), rand.Int64())
	if os.Rename(lockPath, aside) != nil {
		return
	}
	if moved, err := os.Stat(aside); err == nil && !os.SameFile(st, moved) {
		_ = os.Link(aside, lockPath)
	}
	os.Remove(aside)
}

// removePacked drops name from packed-refs under packed-refs.lock, as git does
// when deleting a ref.
func (d *Disk) removePacked(name string) error {
	packedPath := filepath.Join(d.commonDir, "packed-refs")
	lock, release, err := d.lock(packedPath)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			lock.Close()
			os.Remove(lock.Name())
		}
		release()
	}()
	data, err := os.ReadFile(packedPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var out bytes.Buffer
	lines := strings.SplitAfter(string(data), "\n")
	found := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if _, n, ok := strings.Cut(strings.TrimRight(line, "\n"), " "); ok && n == name && line[0] != '#' {
			found = true
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "^") {
				i++
			}
			continue
		}
		out.WriteString(line)
	}
	if !found {
		return nil
	}
	if err := lock.Truncate(0); err != nil {
		return err
	}
	if _, err := lock.WriteAt(out.Bytes(), 0); err != nil {
		return err
	}
	if err := lock.Sync(); err != nil {
		return err
	}
	if err := lock.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock.Name(), packedPath); err != nil {
		return err
	}
	renamed = true
	return nil
}

// Mem is the ref database of an in-memory repository (tests, previews).
type Mem struct {
	mu   sync.Mutex
	refs map[string]Hash
}

// NewMem is an empty ref database held in memory.
func NewMem() *Mem { return &Mem{refs: map[string]Hash{}} }

// Read implements DB.
func (m *Mem) Read(name string) (Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refs[name], nil
}

// Update implements DB.
func (m *Mem) Update(name string, newHash, oldHash Hash) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refs[name] != oldHash {
		return ErrMoved
	}
	if newHash.IsZero() {
		delete(m.refs, name)
	} else {
		m.refs[name] = newHash
	}
	return nil
}

// List implements DB.
func (m *Mem) List(prefix string) (map[string]Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Hash{}
	for k, v := range m.refs {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out, nil
}

// parseLooseRef reads a loose ref file as git does: the content up to a NUL
// and without trailing blanks is "ref:" and the name of the ref it points
// at (blanks between allowed), or 40 hex digits of either case, ended or
// followed by a blank (FETCH_HEAD's form: what follows is not read).
func parseLooseRef(data []byte) (target string, h Hash, ok bool) {
	s, _, _ := strings.Cut(string(data), "\x00")
	s = strings.TrimRight(s, gitSpaces)
	if rest, isSym := strings.CutPrefix(s, "ref:"); isSym {
		target = strings.TrimLeft(rest, gitSpaces)
		return target, zeroHash, target != ""
	}
	if len(s) < 2*len(h) || len(s) > 2*len(h) && !strings.ContainsRune(gitSpaces, rune(s[2*len(h)])) {
		return "", zeroHash, false
	}
	h, ok = gitobj.ParseHash(strings.ToLower(s[:2*len(h)]))
	return "", h, ok
}

// gitSpaces are the bytes git's isspace knows.
const gitSpaces = " \t\n\r"

// summary is text on one line, cut to n characters with an ellipsis.
func summary(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
