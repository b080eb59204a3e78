package hooks

import (
	"runtime/debug"

	"github.com/git-mem/git-mem/agents"
)

// shortHookHeap bounds the heap of a session-start or prompt hook process
// run without collections.
const shortHookHeap = 256 << 20

// PrepareRuntime tunes the Go runtime of a process started for one hook
// event; only a process's main calls it. Session-start and prompt allocate
// a few megabytes and exit within milliseconds, so a collection on the way
// costs them more than it frees (at 100,000 memories about a quarter of the
// prompt hook's CPU): the collector waits until the heap nears
// shortHookHeap. The other events, and warm, which may rebuild the
// snapshot, keep the defaults.
func PrepareRuntime(event string) {
	switch agents.NormalizeEvent(event) {
	case agents.EventSessionStart, agents.EventPrompt:
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(shortHookHeap)
	}
}
