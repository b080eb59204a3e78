package hooks

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/internal/lockfile"
)

const (
	// shortHookHeap bounds the heap of a session-start or prompt hook run
	// without collections (they need about 10 MB at 100,000 memories).
	shortHookHeap = 256 << 20
	// shortHookTime is how long they run without collections: a hook that
	// takes longer is bringing a cache up to date from the stores, which
	// allocates as much as a reindex and wants the collector back.
	shortHookTime = 500 * time.Millisecond
)

// PrepareRuntime tunes the Go runtime of a process started for one hook
// event; only a process's main calls it. Session-start and prompt allocate
// a few megabytes and exit within milliseconds, so a collection on the way
// costs them more than it frees (at 100,000 memories about a quarter of the
// prompt hook's CPU): the collector waits until the heap nears
// shortHookHeap or the hook has run for shortHookTime. The other events,
// and warm, which may rebuild the snapshot, keep the defaults.
func PrepareRuntime(event string) {
	switch agents.NormalizeEvent(event) {
	case agents.EventSessionStart, agents.EventPrompt:
		HoldCollector(shortHookHeap, shortHookTime)
	}
}

// MapsSnapshots tells whether a process started for one hook event reads
// the recall snapshot through a memory map (Request.MapSnapshots):
// session-start and prompt, which exit within milliseconds. The other
// events, and warm, which may rebuild the snapshot, read it into memory.
func MapsSnapshots(event string) bool {
	switch agents.NormalizeEvent(event) {
	case agents.EventSessionStart, agents.EventPrompt:
		return true
	}
	return false
}

// HoldCollector keeps the garbage collector off for d, or until the heap
// nears limit (or a lower GOMEMLIMIT), then gives back the settings it
// found: a process that exits within milliseconds spends more on a
// collection than it frees, and one that runs longer gets the collector
// back. Only a process's main calls it; calls after the first do nothing.
func HoldCollector(limit int64, d time.Duration) {
	holdOnce.Do(func() {
		percent := debug.SetGCPercent(-1)
		old := debug.SetMemoryLimit(-1) // GOMEMLIMIT's, when set lower
		debug.SetMemoryLimit(min(old, limit))
		time.AfterFunc(d, func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(old)
		})
	})
}

// holdOnce keeps a second call from taking the first one's settings for
// the runtime's own.
var holdOnce sync.Once

// SignalContext is the context of a process started for one hook event:
// SIGINT and SIGTERM cancel it, so that the hook releases the locks it
// holds before it exits. The signals are caught from the process's first
// lock on (lockfile.BeforeFirst): catching them costs a hook the
// threads os/signal starts, and a hook that holds no lock
// leaves nothing behind when a signal ends it at once. Only a main calls
// it, before anything else.
func SignalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	lockfile.BeforeFirst(func() { cancelOnSignal(cancel) })
	return ctx, cancel
}

func cancelOnSignal(cancel context.CancelFunc) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
	}()
}
