package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/bleveindex"
)

// The hooks run in-process here as they do inside git-mem, with the bleve
// engine; binary_test.go runs git-mem-hook, which has none.
func init() { index.UseEngine(bleveindex.Engine{}) }

// clock is the fixed time the tests run at.
var clock = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

func fixedNow() time.Time { return clock }

// isolate keeps the tests away from the user's personal store, git config and agents.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository on branch main, with one commit unless empty.
func newRepo(t testing.TB, empty bool) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	git(t, dir, "config", "user.name", "Ada")
	git(t, dir, "config", "user.email", "ada@example.com")
	if !empty {
		write(t, dir, "README.md", "hello\n")
		git(t, dir, "add", ".")
		git(t, dir, "commit", "-qm", "Initial commit")
	}
	return dir
}

func write(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

func openSet(t testing.TB, dir string) *gitstore.Set {
	t.Helper()
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	set.Repo.Now = fixedNow
	return set
}

// seedMem is a memory to store in a test repository.
type seedMem struct {
	Type, Text, Source string
	Tags, Paths        []string
	Pinned             bool
	Agent              string
	// Trust, when set, overrides the starting trust.
	Trust float64
	// Age is how long before the clock it was written.
	Age time.Duration
}

// seed writes memories in one commit and returns their ids in order.
func seed(t testing.TB, dir string, mems ...seedMem) []string {
	t.Helper()
	set := openSet(t, dir)
	st := gitstore.NewStore(set.Repo, gitstore.RefMain, gitstore.ScopeProject)
	var ids []string
	_, err := st.Update(context.Background(), gitstore.Writer{Agent: "cli"}, func(tx *gitstore.Tx) error {
		ids = ids[:0]
		for _, s := range mems {
			m := memory(s)
			ids = append(ids, m.ID)
			tx.Put(m)
		}
		tx.Describe(gitstore.OpAdd, fmt.Sprintf("seed %d memories", len(mems)), ids...)
		return nil
	})
	require.NoError(t, err)
	return ids
}

func memory(s seedMem) *gitstore.Memory {
	if s.Type == "" {
		s.Type = gitstore.TypeFact
	}
	if s.Source == "" {
		s.Source = gitstore.SourceUser
	}
	if s.Agent == "" {
		s.Agent = "claude-code"
	}
	trust := gitstore.StartingTrust(s.Source, false)
	if s.Trust > 0 {
		trust = s.Trust
	}
	at := clock.Add(-s.Age - time.Hour)
	return &gitstore.Memory{
		Schema: gitstore.SchemaVersion, ID: gitstore.NewID(), Type: s.Type, Text: s.Text, Tags: s.Tags, Paths: s.Paths,
		Source: s.Source, Pinned: s.Pinned, Trust: trust, Agent: s.Agent, Author: "Ada <ada@example.com>",
		Created: at, Updated: at, ValidFrom: at,
	}
}

var (
	subjects = []string{"webhook", "invoice", "refund", "session", "cache", "migration", "queue", "scheduler", "parser", "router",
		"payment", "booking", "tenant", "export", "import", "search", "index", "token", "upload", "thumbnail", "report", "ledger"}
	verbs = []string{"retries", "stores", "validates", "rejects", "logs", "batches", "signs", "streams", "locks", "renders",
		"compresses", "expires", "reconciles", "throttles", "encrypts"}
	objects = []string{"timestamps in UTC", "ids as ULIDs", "amounts in cents", "requests after 30 seconds", "rows in batches of 500",
		"errors with a request id", "payloads over 1 MB", "events in order", "files under /var/data", "keys per tenant",
		"dates in ISO 8601", "at most 3 times", "with exponential backoff", "behind a feature flag", "only on the primary"}
	dirs = []string{"server", "web", "worker", "lib", "cmd", "internal/billing", "internal/auth", "pkg/queue"}
)

// corpus returns n varied memories, reproducibly.
func corpus(n int) []seedMem {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]seedMem, n)
	types := []string{gitstore.TypeFact, gitstore.TypeDecision, gitstore.TypeGotcha, gitstore.TypeConvention, gitstore.TypeCommand}
	for i := range out {
		sub := subjects[r.IntN(len(subjects))]
		out[i] = seedMem{
			Type:   types[r.IntN(len(types))],
			Text:   fmt.Sprintf("The %s %s %s %s (note %d)", sub, subjects[r.IntN(len(subjects))], verbs[r.IntN(len(verbs))], objects[r.IntN(len(objects))], i),
			Source: gitstore.Sources[r.IntN(len(gitstore.Sources))],
			Paths:  []string{fmt.Sprintf("%s/%s.go", dirs[r.IntN(len(dirs))], sub)},
			Age:    time.Duration(r.IntN(200*24)) * time.Hour,
		}
		if i%500 == 0 {
			out[i].Type = gitstore.TypePreference
		}
	}
	return out
}

// payload renders a hook payload for a directory.
func payload(agent, event, session, dir string, extra map[string]any) string {
	p := map[string]any{}
	switch agent {
	case agents.Cursor:
		p["conversation_id"] = session
		p["generation_id"] = "g1"
		p["workspace_roots"] = []string{dir}
		p["hook_event_name"] = event
	default:
		p["session_id"] = session
		p["transcript_path"] = "/home/dev/.agent/transcripts/" + session + ".jsonl"
		if agent == agents.Codex {
			p["transcript_path"] = nil
		}
		p["cwd"] = dir
		p["hook_event_name"] = event
	}
	for k, v := range extra {
		p[k] = v
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	_ = enc.Encode(p)
	return b.String()
}

// run runs one hook and checks what every hook must guarantee: stdout is
// empty or one valid JSON document.
func run(t *testing.T, event, agent, stdin string) *hooks.Outcome {
	t.Helper()
	var out bytes.Buffer
	o := hooks.Run(context.Background(), hooks.Request{
		Event: event, Agent: agent, In: strings.NewReader(stdin), Out: &out,
		Now: fixedNow, Getenv: func(string) string { return "" },
	})
	require.Equal(t, out.String(), string(o.Output))
	if out.Len() > 0 {
		require.True(t, json.Valid(out.Bytes()), "invalid JSON on stdout: %q", out.String())
		require.Equal(t, 1, strings.Count(strings.TrimSpace(out.String()), "\n")+1, "one line of JSON")
	}
	return o
}

// injected returns the injected text of an output ("" when none).
func injected(t *testing.T, o *hooks.Outcome) string {
	t.Helper()
	if len(o.Output) == 0 {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		AdditionalContext string `json:"additional_context"`
	}
	require.NoError(t, json.Unmarshal(o.Output, &v))
	if v.AdditionalContext != "" {
		return v.AdditionalContext
	}
	return v.HookSpecificOutput.AdditionalContext
}

// payloadAgents are the agents that send hook payloads of their own (the
// fixtures under fixtures/hooks): all but OpenCode, whose payloads git-mem's
// own plugin builds in Claude Code's shape and names the agent with --agent.
func payloadAgents() []string {
	var out []string
	for _, a := range agents.Names {
		if a != agents.OpenCode {
			out = append(out, a)
		}
	}
	return out
}
