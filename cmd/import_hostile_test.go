package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memBounded runs the binary in dir, killing it if it has not finished
// within limit: a hostile file must never hang an import.
func (sb *sandbox) memBounded(limit time.Duration, dir string, args ...string) (string, string, int) {
	sb.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, binary, args...)
	c.Dir = dir
	c.Env = sb.env()
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	require.NoError(sb.t, ctx.Err(), "git mem %s did not finish: %s", strings.Join(args, " "), errb.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(sb.t, err)
	return out.String(), errb.String(), 0
}

// TestImportHostileFiles: what a cloned repository can hold (symlinks out of
// it, to devices, FIFOs) is skipped with the reason, never read and never
// waited on; the good file beside it is still imported, in one commit.
func TestImportHostileFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks and FIFOs")
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "notes.md")
	require.NoError(t, os.WriteFile(secret, []byte("- the machine's own private note stays on the machine\n"), 0o644))
	cases := []struct {
		name  string
		plant func(t *testing.T, path string)
		skip  string // the reason on stderr; "" when the file is imported
	}{
		{"symlink out of the repository", func(t *testing.T, p string) { require.NoError(t, os.Symlink(secret, p)) }, "a symlink to a file outside the repository"},
		{"symlink through a folder out of the repository", func(t *testing.T, p string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(filepath.Dir(p), "linked")))
			require.NoError(t, os.Symlink(filepath.Join("linked", "notes.md"), p))
		}, "a symlink to a file outside the repository"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) }, "a symlink to a file outside the repository"},
		{"FIFO", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }, "not a regular file (a FIFO)"},
		{"symlink inside the repository", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(p), "AGENTS.md"), []byte("- the agents file is read through its link\n"), 0o644))
			require.NoError(t, os.Symlink("AGENTS.md", p))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			good := filepath.Join(sb.repo, "good.md")
			require.NoError(t, os.WriteFile(good, []byte("- the good file beside it is imported\n"), 0o644))
			hostile := filepath.Join(sb.repo, "hostile.md")
			tc.plant(t, hostile)
			for _, dry := range []bool{true, false} {
				args := []string{"import", "hostile.md", "good.md"}
				if dry {
					args = []string{"import", "--dry-run", "hostile.md", "good.md"}
				}
				out, errOut, code := sb.memBounded(20*time.Second, sb.repo, args...)
				require.Equal(t, 0, code, errOut)
				if tc.skip != "" {
					require.Contains(t, errOut, "skipped hostile.md: invalid input: "+tc.skip)
					require.NotContains(t, out, "private note")
				} else {
					require.Empty(t, errOut)
				}
			}
			log := sb.git("log", "-p", "refs/memory/main")
			require.Contains(t, log, "the good file beside it is imported")
			require.NotContains(t, log, "private note", "nothing from outside the repository is stored")
			require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))
			if tc.skip == "" {
				require.Contains(t, log, "the agents file is read through its link")
			}
		})
	}
}

// TestImportFileLimit: a file over the documented limit of one file is
// skipped without being read whole.
func TestImportFileLimit(t *testing.T) {
	sb := newSandbox(t)
	big := filepath.Join(sb.repo, "big.md")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<40)) // sparse: a terabyte that takes no disk
	require.NoError(t, f.Close())
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "good.md"), []byte("- the good file beside it is imported\n"), 0o644))
	_, errOut, code := sb.memBounded(20*time.Second, sb.repo, "import", "big.md", "good.md")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "skipped big.md: invalid input: over the 67108864-byte limit of one file; split it")
}

// TestImportTwiceAddsNothing: importing the same file again adds nothing,
// even when its memories differ from each other or from a stored one only
// by a number, and a dry run says so too.
func TestImportTwiceAddsNothing(t *testing.T) {
	cases := []struct {
		name   string
		stored string // added before the imports
		file   string
		items  int
	}{
		{"two items differing by a number", "", "- the api listens on port 8080 in staging\n- the api listens on port 8081 in staging\n", 2},
		{"an item differing from a stored memory by a number", "the api listens on port 9090 in prod", "- the api listens on port 9091 in prod\n- the api listens on port 9090 in prod\n", 2},
		{"numbered versions", "", "- release 1.2 needs the schema migration first\n- release 1.3 needs the schema migration first\n- release 1.4 needs the schema migration first\n", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			if tc.stored != "" {
				mustRun(t, sb, "add", "--", tc.stored)
			}
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte(tc.file), 0o644))
			_, errOut, code := sb.run("import", "notes.md")
			require.Equal(t, 0, code, errOut)
			before := refAt(t, sb.repo, "refs/memory/main")
			var list []struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &list))
			count := len(list)

			out, errOut, code := sb.run("import", "--dry-run", "notes.md")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, fmt.Sprintf("0 added, 0 reinforced, %d unchanged", tc.items))
			out, errOut, code = sb.run("import", "notes.md")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, fmt.Sprintf("0 added, 0 reinforced, %d unchanged, 0 refused (no commit: nothing new)", tc.items))
			require.Equal(t, before, refAt(t, sb.repo, "refs/memory/main"))
			require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &list))
			require.Len(t, list, count)
		})
	}
}

// TestImportBadRecord: one bad record is refused at its file and line, the
// same way in a dry run and in the import, and the good records beside it
// are imported (in one commit); a file that is not JSON at all is skipped
// with the line where it stops being JSON.
func TestImportBadRecord(t *testing.T) {
	good := `{"text": "the good record beside it is imported"}`
	cases := []struct {
		name, record, refusal string
	}{
		{"restored record with an unknown event", `{"text": "restored with a bad event", "id": "0123456789abcdef", "created": "2026-01-01T00:00:00Z", "events": [{"op": "zzz"}]}`,
			`refused bad.jsonl:2: invalid input: event 0 has unknown op "zzz"`},
		{"field of the wrong kind", `{"text": "supersedes given as a list", "supersedes": ["0123456789abcdef"]}`,
			`refused bad.jsonl:2: not a memory: its field "supersedes" is a JSON array, not a string; fix or remove this record`},
		{"text of the wrong kind", `{"text": 42}`,
			`refused bad.jsonl:2: not a memory: its field "text" is a JSON number, not a string; fix or remove this record`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "bad.jsonl"), []byte(good+"\n"+tc.record+"\n"), 0o644))
			out, errOut, code := sb.run("import", "--dry-run", "bad.jsonl")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, tc.refusal+"\n")
			require.Contains(t, out, "1 added, 0 reinforced, 0 unchanged, 1 refused")
			out, errOut, code = sb.run("import", "bad.jsonl")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.refusal+"\n", errOut, "the same report as the dry run")
			require.Contains(t, out, "1 added, 0 reinforced, 0 unchanged, 1 refused")
			require.Equal(t, "1\n", sb.git("rev-list", "--count", "refs/memory/main"))
			require.Contains(t, sb.git("log", "-p", "refs/memory/main"), "the good record beside it is imported")
		})
	}

	sb := newSandbox(t)
	sb.isolate()
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.jsonl"), []byte(good+"\nnot json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte("- the Markdown beside it is imported\n"), 0o644))
	for _, args := range [][]string{{"import", "--dry-run", "notes.jsonl", "notes.md"}, {"import", "notes.jsonl", "notes.md"}} {
		_, errOut, code := sb.run(args...)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, "skipped notes.jsonl:2: not a memory file: not a memory (a string or an object with text): invalid character")
	}
}

// TestImportInterrupted: SIGINT or SIGTERM stops an import, also one given a
// FIFO (which once blocked it in open, deaf to signals): it exits promptly
// having written one whole commit or none, and leaves no lock behind.
func TestImportInterrupted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals and FIFOs")
	}
	var notes strings.Builder
	notes.WriteString("# Notes\n\n")
	words := strings.Fields("deploy build test cache token staging release branch review schema migration queue worker index")
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&notes, "- %s %s %s %s %s %s %d\n", words[i%14], words[i*7%14], words[i*3%14], words[i*5%14], words[i*11%14], words[i/14%14], i)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			sb := newSandbox(t)
			require.NoError(t, syscall.Mkfifo(filepath.Join(sb.repo, "pipe.md"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(sb.repo, "notes.md"), []byte(notes.String()), 0o644))
			c := exec.Command(binary, "import", "pipe.md", "notes.md")
			c.Dir, c.Env = sb.repo, sb.env()
			var errb bytes.Buffer
			c.Stderr = &errb
			require.NoError(t, c.Start())
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, c.Process.Signal(sig))
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = c.Process.Kill()
				<-done
				t.Fatalf("git mem import did not stop on %v: %s", sig, errb.String())
			}
			commits := "0"
			if refAt(t, sb.repo, "refs/memory/main") != "" {
				commits = strings.TrimSpace(sb.git("rev-list", "--count", "refs/memory/main"))
			}
			require.Contains(t, []string{"0", "1"}, commits, "one commit or none")
			if c.ProcessState.ExitCode() != 0 {
				require.Contains(t, errb.String(), "import interrupted")
			}
			locks, err := filepath.Glob(filepath.Join(sb.repo, ".git", "*.lock"))
			require.NoError(t, err)
			refLocks, err := filepath.Glob(filepath.Join(sb.repo, ".git", "refs", "memory", "*.lock"))
			require.NoError(t, err)
			require.Empty(t, append(locks, refLocks...), "no lock left behind")
			sb.git("fsck", "--no-dangling")
		})
	}
}
