package hooks

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
)

// gcPercent reads the collector's setting without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The short events run without collections, and only for a while; the
// others keep the runtime's settings.
func TestPrepareRuntime(t *testing.T) {
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	for _, event := range []string{"session-end", "stop", "warm", "nonsense"} {
		PrepareRuntime(event)
		require.Equal(t, before, gcPercent(), event)
	}
	PrepareRuntime("UserPromptSubmit")
	require.Equal(t, -1, gcPercent())
	require.Equal(t, int64(shortHookHeap), debug.SetMemoryLimit(-1))
	require.Eventually(t, func() bool { return gcPercent() == before }, 5*time.Second, 10*time.Millisecond, "the collector comes back after shortHookTime")
	require.Equal(t, limit, debug.SetMemoryLimit(-1))
	// a process prepares once: a second call leaves the runtime alone
	PrepareRuntime("prompt")
	require.Equal(t, before, gcPercent())
}

// TestMapsSnapshots: only the events whose process exits within
// milliseconds read the recall snapshot through a memory map; warm, which
// may rebuild it, and the events that write do not.
func TestMapsSnapshots(t *testing.T) {
	for _, tc := range []struct {
		event string
		maps  bool
	}{
		{agents.EventSessionStart, true},
		{agents.EventPrompt, true},
		{"UserPromptSubmit", true},
		{"SessionStart", true},
		{agents.EventSessionEnd, false},
		{agents.EventStop, false},
		{eventWarm, false},
		{eventFinish, false},
	} {
		require.Equal(t, tc.maps, MapsSnapshots(tc.event), tc.event)
	}
}
