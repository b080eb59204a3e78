// Package gitstoretest is test support for gitstore and the packages above
// it: lock holders that die mid-write (lock.go) and memory documents as a
// hand edit leaves them (doc.go). It does not import gitstore, so gitstore's
// own tests use it too; only tests import it (cmd/architecture_test.go).
package gitstoretest

import (
	"bufio"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A lock holder that dies is what an agent leaves when it kills a hook
// mid-write: the test binary runs one of its own tests as another process,
// which takes a lock, says so, and is killed. gitstore's ref locks and
// handoff's session note locks are tested this way.

// locked is what the holder prints once it holds its lock.
const locked = "locked\n"

// Holding returns the value a holder test was started with (KillHolder), and
// skips it when it runs as an ordinary test.
func Holding(t testing.TB, env string) string {
	v := os.Getenv(env)
	if v == "" {
		t.Skip("a lock holder, run as another process by gitstoretest.KillHolder")
	}
	return v
}

// Hold is the end of a holder test, once it has taken its lock: it says so
// and waits to be killed.
func Hold() {
	os.Stdout.WriteString(locked)
	time.Sleep(time.Minute)
}

// KillHolder runs the test named holder of this test binary as another
// process with env set to value (the holder skips without it), waits until
// it holds its lock (Hold), and kills it, leaving the lock behind.
func KillHolder(t testing.TB, holder, env, value string) {
	t.Helper()
	StartHolder(t, holder, env, value)()
}

// StartHolder is KillHolder that leaves the holder running, holding its
// lock, until the returned kill is called (or the test ends).
func StartHolder(t testing.TB, holder, env, value string) (kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+holder+"$")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var once sync.Once
	kill = func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, locked, line)
	return kill
}
