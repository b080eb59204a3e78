package bleveindex

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// holdEnv makes the test binary a helper process that holds an index open
// read-write until its stdin closes.
const holdEnv = "GIT_MEM_TEST_HOLD_INDEX"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		idx, err := openBleve(dir, false)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		io.Copy(io.Discard, os.Stdin)
		idx.Close()
		os.Exit(0)
	}
	index.UseEngine(Engine{})
	os.Exit(m.Run())
}

// holdIndex starts another OS process holding the index of dir open read-write.
func holdIndex(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)
}

func TestRecallWhileAnotherProcessHoldsTheIndex(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	want := answersFromIndex(t, r)
	holdIndex(t, index.Dir(r.Set))

	for _, q := range seedQueries {
		start := time.Now()
		res := r.recall(q)
		require.Equal(t, "snapshot", res.Source, "the held index cannot be opened")
		require.Contains(t, res.Fallback, "busy")
		require.Equal(t, want[q], ids(res), q)
		require.Less(t, time.Since(start), 3*time.Second)
		text, shown := index.Pack(r.Set, res, 120, 0, "more")
		require.LessOrEqual(t, len([]rune(text)), 120*index.CharsPerToken, "within budget")
		require.NotEmpty(t, shown)
	}
	// a write while the index is held: recall still sees it, from the
	// snapshot brought forward
	m := r.add("Held-index memory: the nightly export runs at 02:00 UTC.")
	res := r.recall("nightly export")
	require.Equal(t, "snapshot", res.Source)
	require.Equal(t, []string{m.ID}, ids(res))
}

func TestRecallAfterTheHolderExits(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	r.recall("deploy")
	func() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), holdEnv+"="+index.Dir(r.Set))
		cmd.Stdin = nil // EOF at once: the holder opens, closes and exits
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}()
	m := r.add("After the holder: deploy previews go to Cloudflare Pages.")
	res := r.recall("deploy previews cloudflare pages")
	require.Equal(t, "index", res.Source, res.Fallback)
	require.Equal(t, m.ID, res.Hits[0].Memory.ID)
}

// TestConcurrentRecallsAndWrites: recalls racing each other and a writer
// never fail, and once the writes stop the index and the scan agree.
func TestConcurrentRecallsAndWrites(t *testing.T) {
	r := newTestRepo(t)
	r.seed()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				if _, err := index.Recall(ctx, r.Set, index.Options{Query: "deploy api playwright timeout", Now: testNow}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < 8; i++ {
		_, err := r.Main.Add(ctx, gitstore.Writer{Agent: "test"}, gitstore.NewMemory{Text: fmt.Sprintf("Concurrent note %d: the deploy api job number %d uses playwright timeout %d.", i, i*7, i*13)})
		require.NoError(t, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	a := r.recall("deploy api playwright timeout concurrent note")
	b := r.recall("deploy api playwright timeout concurrent note", func(o *index.Options) { o.NoIndex = true })
	require.Equal(t, "index", a.Source, a.Fallback)
	require.Equal(t, ids(b), ids(a))
}

// seedQueries are questions the seeded memories answer.
var seedQueries = []string{"deploy api fly.io", "requireAdmin session", "playwright timeout ci", "stripe webhook secret"}

// answersFromIndex recalls each of seedQueries through the index: the ids
// every other source must return too.
func answersFromIndex(t *testing.T, r *testRepo) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, q := range seedQueries {
		res := r.recall(q)
		require.Equal(t, "index", res.Source)
		require.NotEmpty(t, ids(res), q)
		want[q] = ids(res)
	}
	return want
}
