package lockfile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// Lock files (docs/architecture.md, storage) are created with O_EXCL. A lock
// git-mem takes starts with a line naming its holder ("git-mem pid N on
// HOST"), so that the next writer can tell a lock whose process is gone (a
// hook killed by its agent, a crash) from a live one and break it at once,
// instead of waiting for it to age. A ref lock's line is replaced by the new
// value just before the lock is renamed over the ref, as git's protocol
// wants; locks git itself takes are empty and only age breaks them.

// ownerLine is what a lock taken by this process starts with.
func ownerLine() []byte {
	host, _ := os.Hostname()
	return []byte(fmt.Sprintf("git-mem pid %d on %s\n", os.Getpid(), host))
}

// markLockOwner writes the holder line into a lock just created.
func markLockOwner(f *os.File) error {
	_, err := f.Write(ownerLine())
	return err
}

// Abandoned reports whether the lock file at path was taken by a git-mem
// process of this machine that no longer runs. A lock without a holder line
// (git's own, or one being written this instant) is never abandoned here.
func Abandoned(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, ok := bytes.Cut(buf[:n], []byte("\n"))
	if !ok {
		return false
	}
	var pid int
	var host string
	rest, found := bytes.CutPrefix(line, []byte("git-mem pid "))
	if !found {
		return false
	}
	num, h, ok := bytes.Cut(rest, []byte(" on "))
	if !ok {
		return false
	}
	pid, err = strconv.Atoi(string(num))
	if err != nil || pid <= 0 {
		return false
	}
	host = string(h)
	if me, _ := os.Hostname(); host != me {
		return false // another machine's process: only age tells
	}
	return !processAlive(pid)
}

// Create creates the lock file path exclusively and names this process
// as its holder. It fails with an error satisfying errors.Is(err,
// os.ErrExist) when another holds it. The lock counts as held (see
// WaitReleased) until release is called.
func Create(path string) (f *os.File, release func(), err error) {
	firstLock.once.Do(func() {
		if firstLock.fn != nil {
			firstLock.fn()
		}
	})
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, err
	}
	heldLocks.add(1)
	if err := markLockOwner(f); err != nil {
		f.Close()
		os.Remove(path)
		heldLocks.add(-1)
		return nil, nil, err
	}
	var once sync.Once
	return f, func() { once.Do(func() { heldLocks.add(-1) }) }, nil
}

// BeforeFirst has fn called once, before this process creates its
// first lock file, so that what a process needs only while it holds one
// (catching signals, to release it before exiting) costs nothing until
// then. A main calls it before anything else runs.
func BeforeFirst(fn func()) { firstLock.fn = fn }

var firstLock struct {
	once sync.Once
	fn   func()
}

// heldLocks counts the lock files this process holds.
var heldLocks = &lockCount{}

type lockCount struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed when n changes
}

func (c *lockCount) add(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += d
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

func (c *lockCount) state() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.n, c.changed
}

// WaitReleased waits until this process holds no lock file (ref locks,
// session note locks), or ctx ends; it reports whether none is held. A
// process that is about to exit calls it so that it never leaves a lock
// behind for the next writer.
func WaitReleased(ctx context.Context) bool {
	for {
		n, changed := heldLocks.state()
		if n <= 0 {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
