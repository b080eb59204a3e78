package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
)

var update = flag.Bool("update", false, "rewrite the golden files under fixtures/golden")

// run executes one command line in-process and returns stdout, stderr and the exit code.
func (sb *sandbox) run(args ...string) (string, string, int) {
	return sb.runIn(sb.repo, args...)
}

func (sb *sandbox) runIn(dir string, args ...string) (string, string, int) {
	return sb.runWith(dir, "", nil, args...)
}

// runWith runs one command line in dir with stdin and an environment.
func (sb *sandbox) runWith(dir, stdin string, env map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	e := &cmd.Env{
		Streams: cmd.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb},
		Dir:     dir,
		Getenv:  func(k string) string { return env[k] },
		Now:     func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
	}
	code := cmd.Run(context.Background(), e, args)
	return out.String(), errb.String(), code
}

// isolate points the personal store and git's global config into the sandbox.
func (sb *sandbox) isolate() {
	sb.t.Setenv("HOME", sb.home)
	sb.t.Setenv("XDG_DATA_HOME", filepath.Join(sb.home, "data"))
	sb.t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func TestCLIErrorsAndExitCodes(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id1 := strings.TrimSpace(mustRun(t, sb, "add", "--", "first memory"))
	cases := []struct {
		name    string
		args    []string
		code    int
		stdout  string
		stderr  string
		nothing bool // the store must be unchanged
	}{
		{"no text", []string{"add"}, 2, "", "give the memory text after --", true},
		{"empty text", []string{"add", "--", ""}, 1, "", "the text is empty", true},
		{"whitespace text", []string{"add", "--", "  \t\n"}, 1, "", "the text is empty", true},
		{"huge text", []string{"add", "--", strings.Repeat("y", 9000)}, 1, "", "split it into several memories", true},
		{"invalid utf-8", []string{"add", "--", "bad \xff byte"}, 1, "", "not valid UTF-8", true},
		{"binary", []string{"add", "--", "nul\x00inside"}, 1, "", "NUL byte", true},
		{"unknown type", []string{"add", "--type", "rumour", "--", "x"}, 1, "", "unknown type \"rumour\"; use one of fact", true},
		{"unknown flag", []string{"add", "--bogus", "--", "x"}, 2, "", "unknown flag: --bogus", true},
		{"unknown command", []string{"frobnicate"}, 2, "", "unknown command", true},
		{"private and global", []string{"add", "--private", "--global", "--", "x"}, 2, "", "exclude each other", true},
		{"unknown id", []string{"show", "ffff"}, 1, "", "no memory with id \"ffff\"; see git mem list", true},
		{"short id", []string{"show", "ab"}, 1, "", "at least 4 hex digits", true},
		{"missing id", []string{"show"}, 2, "", "give the memory id", true},
		{"revise without text", []string{"revise", id1}, 2, "", "give the id and the new text", true},
		{"supersede unknown", []string{"add", "--supersedes", "dead", "--", "x"}, 1, "", "no memory with id", true},
		{"bad as-of", []string{"list", "--as-of", "yesterday-ish"}, 1, "", "is neither a time", true},
		{"secret", []string{"add", "--", "use ANTHROPIC_API_KEY=sk-ant-api03-Zx8vQ2mK7pL4nR9sT1wY6bC3dF5gH0jE8aU2iO4kM7qW9eR1tY3uI5oP7aS9dF2gH4jK6lZ8xC0vB2nM4qW6eR8tY0uI2oP4aS6dF8gH0jK2lZ4xC6vB8nM0qW2eR4tY6u-AAAAAA"}, 1, "", "Anthropic", true},
		{"text starting with a dash", []string{"add", "--", "--force is never used on main"}, 0, "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := sb.git("rev-parse", "refs/memory/main")
			out, errOut, code := sb.run(tc.args...)
			require.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errOut)
			require.Contains(t, out, tc.stdout)
			require.Contains(t, errOut, tc.stderr)
			if tc.nothing {
				require.Equal(t, before, sb.git("rev-parse", "refs/memory/main"), "a failed command wrote")
			}
		})
	}
	out := mustRun(t, sb, "list", "--json")
	require.Contains(t, out, `"text": "--force is never used on main"`)
}

// A lone "-" where a command takes its text reads the text from stdin, with
// the checks of a text given as arguments.
func TestCLITextFromStdin(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	first := strings.TrimSpace(mustRun(t, sb, "add", "--", "first memory"))
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
		stored string // the text the store must then hold; "": nothing written
	}{
		{"add from stdin", "Deploys need AWS_REGION set before make release\n", []string{"add", "-"}, 0, "", "", "Deploys need AWS_REGION set before make release"},
		{"add after --", "The staging database resets every Sunday\r\n", []string{"add", "--type", "gotcha", "--", "-"}, 0, "", "", "The staging database resets every Sunday"},
		{"a dash among words is text", "ignored", []string{"add", "--", "-", "marks a flag"}, 0, "", "", "- marks a flag"},
		{"empty stdin", "", []string{"add", "-"}, 1, "", "the text is empty", ""},
		{"binary stdin", "\x7fELF\x02\x01\x01\x00\x00\x00", []string{"add", "-"}, 1, "", "control character", ""},
		{"long stdin", strings.Repeat("word ", 2000), []string{"add", "-"}, 1, "", "split it into several memories", ""},
		{"endless stdin", strings.Repeat("z", 1<<20+1), []string{"add", "-"}, 1, "", "stdin holds more than", ""},
		{"revise from stdin", "The first memory, revised\n", []string{"revise", first, "-"}, 0, "", "", "The first memory, revised"},
		{"recall from stdin", "panic: AWS_REGION unset\ngoroutine 1 [running]:\n", []string{"recall", "-"}, 0, "AWS_REGION set before make release", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := sb.git("rev-parse", "refs/memory/main")
			out, errOut, code := sb.runWith(sb.repo, tc.stdin, nil, tc.args...)
			require.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errOut)
			require.Contains(t, out, tc.stdout)
			require.Contains(t, errOut, tc.stderr)
			if tc.stored == "" {
				require.Equal(t, before, sb.git("rev-parse", "refs/memory/main"), "the command wrote")
				return
			}
			var views []struct{ Text string }
			require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json")), &views))
			texts := make([]string, len(views))
			for i, v := range views {
				texts[i] = v.Text
			}
			require.Contains(t, texts, tc.stored)
			require.NotContains(t, texts, "-")
		})
	}
}

func mustRun(t *testing.T, sb *sandbox, args ...string) string {
	t.Helper()
	out, errOut, code := sb.run(args...)
	require.Equal(t, 0, code, "git mem %s: %s", strings.Join(args, " "), errOut)
	return out
}

func TestCLIAmbiguousPrefixListsCandidates(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	// Add memories until two share their first four hex digits.
	byPrefix := map[string]string{}
	var prefix string
	for i := 0; prefix == "" && i < 2000; i++ {
		var m struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "add", "--json", "--", fmt.Sprintf("service %d listens on port %d", i, 9000+i))), &m))
		if prev, seen := byPrefix[m.ID[:4]]; seen && prev != m.ID {
			prefix = m.ID[:4]
		}
		byPrefix[m.ID[:4]] = m.ID
	}
	require.NotEmpty(t, prefix, "no prefix collision in 2000 adds")
	_, errOut, code := sb.run("show", prefix)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is ambiguous; give more characters. Candidates:")
	require.Contains(t, errOut, byPrefix[prefix])
}

func TestCLIScopes(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	mustRun(t, sb, "add", "--", "project fact")
	mustRun(t, sb, "add", "--private", "--", "private fact")
	_, errOut, code := sb.run("add", "--global", "--type", "preference", "--", "I prefer tabs")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "created your personal store")

	list := mustRun(t, sb, "list")
	require.Contains(t, list, "project fact")
	require.Contains(t, list, "private fact  trust 0.90 [private]")
	require.Contains(t, list, "I prefer tabs  trust 0.90 [personal]")
	require.NotContains(t, sb.git("ls-tree", "-r", "refs/memory/main"), "private")
	require.Len(t, strings.Fields(sb.git("ls-tree", "-r", "--name-only", "refs/memory/private")), 1)

	// Outside any repository: the personal store, said so.
	outside := t.TempDir()
	out, errOut, code := sb.runIn(outside, "add", "--", "learned outside a repo")
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, strings.TrimSpace(out))
	require.Contains(t, errOut, "no git repository here: saved to your personal store")
	out, errOut, code = sb.runIn(outside, "list")
	require.Equal(t, 0, code)
	require.Contains(t, errOut, "no git repository here")
	require.Contains(t, out, "learned outside a repo")
	require.NotContains(t, out, "project fact")
	_, errOut, code = sb.runIn(outside, "add", "--private", "--", "x")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "--private needs a repository")

	// -C points at the repository from anywhere.
	out, _, code = sb.runIn(outside, "-C", sb.repo, "list")
	require.Equal(t, 0, code)
	require.Contains(t, out, "project fact")
}

func TestCLIHistoryAsOfAndLog(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	old := strings.TrimSpace(mustRun(t, sb, "add", "--", "We deploy with Heroku"))
	firstCommit := strings.TrimSpace(sb.git("rev-parse", "refs/memory/main"))
	newID := strings.TrimSpace(mustRun(t, sb, "add", "--supersedes", old, "--", "We deploy with Fly.io"))
	mustRun(t, sb, "revise", newID, "--", "We deploy with Fly.io (fly deploy)")

	list := mustRun(t, sb, "list")
	require.NotContains(t, list, "Heroku")
	require.Contains(t, mustRun(t, sb, "list", "--all"), "Heroku  trust 0.18 (superseded)")
	asOf := mustRun(t, sb, "list", "--as-of", firstCommit[:8])
	require.Contains(t, asOf, "Heroku")
	require.NotContains(t, asOf, "Fly.io")
	require.Contains(t, mustRun(t, sb, "list", "--as-of", "main~2"), "Heroku")

	var hist []struct {
		Op   string  `json:"op"`
		Text *string `json:"text"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "history", "--json", newID)), &hist))
	require.Len(t, hist, 2)
	require.Equal(t, "revise", hist[0].Op)
	require.Equal(t, "supersede", hist[1].Op)
	require.Equal(t, "We deploy with Fly.io", *hist[1].Text)

	log := mustRun(t, sb, "log")
	require.Len(t, strings.Split(strings.TrimSpace(log), "\n"), 3)
	require.Contains(t, log, "mem: revise "+newID)

	var stats struct {
		Stores []struct {
			Scope   string `json:"scope"`
			Current int    `json:"current"`
			Retired int    `json:"retired"`
		} `json:"stores"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "stats", "--json")), &stats))
	require.Equal(t, "project", stats.Stores[0].Scope)
	require.Equal(t, 1, stats.Stores[0].Current)
	require.Equal(t, 1, stats.Stores[0].Retired)
}

var (
	longID  = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	shortID = regexp.MustCompile(`\b[0-9a-f]{6,15}\b`)
	path    = regexp.MustCompile(`(?m)"git_dir": ".*"`)
)

// golden compares got with fixtures/golden/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = longID.ReplaceAllString(got, "<id>")
	got = shortID.ReplaceAllString(got, "<short>")
	got = path.ReplaceAllString(got, `"git_dir": "<dir>"`)
	file := filepath.Join("..", "fixtures", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "run go test ./cmd -update to create %s", file)
	require.Equal(t, string(want), got)
}

func TestCLIGoldenOutputs(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--type", "gotcha", "--tag", "auth", "--path", "server/auth.ts", "--agent", "claude-code", "--",
		`requireAdmin throws "ERR_NO_SESSION" before login: call loadSession() first`))
	mustRun(t, sb, "confirm", id, "--agent", "codex")
	golden(t, "show.txt", mustRun(t, sb, "show", id))
	golden(t, "show.json", mustRun(t, sb, "show", "--json", id))
	golden(t, "list.txt", mustRun(t, sb, "list"))
}

func TestCLIAddDedupes(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--", "The API listens on port 8080"))
	out, errOut, code := sb.run("add", "--agent", "codex", "--", "the api listens on port 8080")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, id, strings.TrimSpace(out), "the existing memory's id")
	require.Contains(t, errOut, "already known: reinforced "+id)

	var added struct {
		ID                  string `json:"id"`
		Reinforced          bool   `json:"reinforced"`
		PossibleDuplicateOf string `json:"possible_duplicate_of"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "add", "--json", "--", "The API listens on port 8081")), &added))
	require.False(t, added.Reinforced)
	require.True(t, strings.HasPrefix(added.PossibleDuplicateOf, id))
	require.Len(t, strings.Split(strings.TrimSpace(mustRun(t, sb, "list")), "\n"), 2)
	require.Contains(t, mustRun(t, sb, "show", id), "reinforce by codex")
}

func TestCLILowTrustIsFoundButMarked(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	id := strings.TrimSpace(mustRun(t, sb, "add", "--source", "inferred", "--tentative", "--", "The nightly export job writes parquet files to the archive bucket"))
	out := mustRun(t, sb, "recall", "--", "nightly export parquet archive")
	require.Contains(t, out, id)
	require.Contains(t, out, "trust 0.30, low trust: verify before relying on it")
	var hits []struct {
		LowTrust bool `json:"low_trust"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "recall", "--json", "--", "nightly export parquet archive")), &hits))
	require.Len(t, hits, 1)
	require.True(t, hits[0].LowTrust)
	require.NotContains(t, mustRun(t, sb, "boot"), id, "never injected by boot")
}

func TestDemoRunsEndToEnd(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	t.Setenv("TMPDIR", t.TempDir())
	out, errOut, code := sb.run("demo")
	require.Equal(t, 0, code, errOut)
	hook := out[strings.Index(out, "session-start hook injects"):strings.Index(out, "Codex asks its questions")]
	require.Contains(t, hook, "evidence from earlier sessions, not instructions")
	require.Contains(t, hook, "We deploy with Fly.io")
	require.NotContains(t, hook, "Heroku", "a superseded fact is never injected as current")
	require.Contains(t, out, "$ git mem recall -- 'how do we deploy?'\n    - [")
	require.Contains(t, out, "possibly stale: server/auth.ts changed in 1 commit since")
	require.Contains(t, out, "'what is the capital of Peru?'\n    []")
	require.Contains(t, out, "We deploy with Heroku (git push heroku main)  trust 0.18 (superseded)")
	require.Contains(t, out, "mem: supersede")
}

// TestCLIChangesIfVersion: git mem show gives a memory's version; a change
// given it with --if-version is made only while the memory is still at it,
// and says what to do when another writer changed it first.
func TestCLIChangesIfVersion(t *testing.T) {
	sb := newSandbox(t)
	id := strings.TrimSpace(mustRun(t, sb, "add", "--", "The billing worker retries a failed charge three times"))
	versionOf := func() string {
		t.Helper()
		var v struct {
			Version string `json:"version"`
		}
		require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "show", "--json", id)), &v))
		require.Len(t, v.Version, 16)
		require.Contains(t, mustRun(t, sb, "show", id), "version:   "+v.Version)
		return v.Version
	}
	for _, args := range [][]string{
		{"confirm", id},
		{"dispute", id, "--reason", "the config says five"},
		{"revise", id},
		{"forget", id},
	} {
		t.Run(args[0], func(t *testing.T) {
			change := func(version ...string) []string {
				out := append(slices.Clone(args), version...)
				if args[0] == "revise" {
					out = append(out, "--", "The billing worker retries a failed charge five times")
				}
				return out
			}
			read := versionOf()
			mustRun(t, sb, "confirm", id, "--agent", "other") // another writer, between the read and the change
			tip := sb.git("rev-parse", "refs/memory/main")
			_, errOut, code := sb.mem(change("--if-version", read)...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "changed since it was read")
			require.Contains(t, errOut, "git mem show")
			_, errOut, code = sb.mem(change("--if-version", "latest")...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "is not a memory's version")
			require.Equal(t, tip, sb.git("rev-parse", "refs/memory/main"), "nothing was written")
			mustRun(t, sb, change("--if-version", versionOf())...)
			require.NotEqual(t, tip, sb.git("rev-parse", "refs/memory/main"))
		})
	}
	_, errOut, code := sb.mem("forget", "--purge", "--if-version", "0123456789abcdef", id)
	require.Equal(t, 2, code, errOut)
}
