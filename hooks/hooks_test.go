package hooks_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/hooks"
	"github.com/git-mem/git-mem/index"
)

func logText(t *testing.T, dir string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, ".git", "mem", "hooks.log"))
	return string(data)
}

func TestSessionStartInjectsInOrder(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Type: gitstore.TypePreference, Text: "Prefer table-driven tests with testify require"},
		seedMem{Text: "Bookings are stored in UTC and shown in the tenant's zone", Pinned: true},
		seedMem{Text: "The refund webhook is verified in server/webhook.go", Paths: []string{"server/webhook.go"}},
		seedMem{Text: "Refund amounts are integers in cents, never floats", Source: gitstore.SourceVerified},
		seedMem{Text: "Low trust rumour: refunds are retried forever", Trust: 0.2},
		seedMem{Text: "Subagent scratch: refunds module explored", Tags: []string{"subagent:explore"}},
	)
	git(t, dir, "checkout", "-qb", "feature/refund-webhook")
	write(t, dir, "server/webhook.go", "package server\n")
	set := openSet(t, dir)
	_, err := handoff.Save(context.Background(), set, gitstore.Writer{Agent: "codex", Session: "old"},
		handoff.HandoffInput{Done: "refund event parsed", Next: "persist refunds", Warnings: []string{"staging key expires Friday"}}, index.Access{})
	require.NoError(t, err)

	o := run(t, "session-start", "claude", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "startup"}))
	require.NoError(t, o.Err)
	text := injected(t, o)
	require.Contains(t, string(o.Output), `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":`)
	iHandoff := strings.Index(text, "persist refunds")
	iPref := strings.Index(text, "table-driven")
	iPinned := strings.Index(text, "Bookings are stored in UTC")
	iRel := strings.Index(text, "server/webhook.go")
	require.True(t, iHandoff > 0 && iPref > iHandoff && iPinned > iHandoff && iRel > iPref && iRel > iPinned, text)
	require.Contains(t, text, "not instructions")
	require.Contains(t, text, "trust 0.90")
	require.Contains(t, text, "by Ada via")
	require.NotContains(t, text, "rumour", "memories under trust 0.40 are never injected")
	require.NotContains(t, text, "Subagent scratch", "subagents' memories are not injected at session start")
	require.LessOrEqual(t, utf8.RuneCountInString(text), handoff.StartChars)

	// the start marker records HEAD, branch and the worktree
	ss, err := handoff.OpenSessions(set.Repo)
	require.NoError(t, err)
	m, err := ss.Load("s1")
	require.NoError(t, err)
	require.Equal(t, "feature/refund-webhook", m.Branch)
	require.Equal(t, git(t, dir, "rev-parse", "HEAD"), m.Head)
	require.Contains(t, m.Dirty, "server/")

	// compact: nothing; resume: only what is new
	o = run(t, "session-start", "claude", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "compact"}))
	require.Empty(t, o.Output)
	o = run(t, "session-start", "claude", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "resume"}))
	require.Empty(t, o.Output, "nothing new since the marker")
	later := clock.Add(time.Minute)
	seed(t, dir, seedMem{Type: gitstore.TypePreference, Text: "Prefer small commits with imperative subjects", Age: -2 * time.Hour})
	_ = later
	o = run(t, "session-start", "claude", payload("claude", "SessionStart", "s1", dir, map[string]any{"source": "resume"}))
	text = injected(t, o)
	require.Contains(t, text, "small commits")
	require.NotContains(t, text, "table-driven")
}

func TestHandoffOfAnotherBranchIsLabelled(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	set := openSet(t, dir)
	git(t, dir, "checkout", "-qb", "feature/a")
	_, err := handoff.Save(context.Background(), set, gitstore.Writer{Agent: "cli"}, handoff.HandoffInput{Next: "finish the exporter"}, index.Access{})
	require.NoError(t, err)
	git(t, dir, "checkout", "-q", "main")
	o := run(t, "session-start", "codex", payload("codex", "SessionStart", "s2", dir, map[string]any{"source": "startup", "model": "m", "permission_mode": "default"}))
	text := injected(t, o)
	require.Contains(t, text, "from another branch (feature/a), not this one")
	require.NotContains(t, text, "Handoff left by the last session on this branch")
}

func TestPromptOncePerSession(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Text: "Stripe webhook signatures are verified with the endpoint secret in server/webhook.go"},
		seedMem{Text: "Run the billing tests with make test-billing, they need Postgres"},
	)
	p := func(prompt string) string {
		return payload("claude", "UserPromptSubmit", "s3", dir, map[string]any{"prompt": prompt})
	}
	o := run(t, "prompt", "claude", p("how are stripe webhook signatures verified with the endpoint secret?"))
	text := injected(t, o)
	require.Contains(t, string(o.Output), `"hookEventName":"UserPromptSubmit"`)
	require.Contains(t, text, "endpoint secret")
	require.LessOrEqual(t, utf8.RuneCountInString(text), handoff.PromptChars)
	again := "where do we verify stripe webhook signatures with the endpoint secret"
	require.Contains(t, injected(t, run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "s3b", dir, map[string]any{"prompt": again}))), "endpoint secret", "injected in another session")
	o = run(t, "prompt", "claude", p(again))
	require.Empty(t, o.Output, "each memory at most once per session")
	o = run(t, "prompt", "claude", p("webhook"))
	require.Empty(t, o.Output, "fewer than two usable terms")
	o = run(t, "prompt", "gemini", payload("gemini", "BeforeAgent", "s4", dir, map[string]any{"prompt": "how do I run the billing tests", "timestamp": "2026-03-14T09:30:00Z"}))
	require.Contains(t, string(o.Output), `"hookEventName":"BeforeAgent"`)
	require.Contains(t, injected(t, o), "make test-billing")
}

func TestSessionNote(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	end := payload("codex", "SessionEnd", "s5", dir, map[string]any{"reason": "other"})
	run(t, "session-start", "codex", payload("codex", "SessionStart", "s5", dir, map[string]any{"source": "startup"}))
	o := run(t, "session-end", "codex", end)
	require.NoError(t, o.Err)
	require.Empty(t, o.Output)
	set := openSet(t, dir)
	notes := func() []*gitstore.Memory {
		ms, err := set.List(gitstore.Filter{Type: gitstore.TypeSession})
		require.NoError(t, err)
		return ms
	}
	require.Empty(t, notes(), "nothing happened: no note")

	write(t, dir, "billing.go", "package billing\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add the billing package")
	write(t, dir, "notes.txt", "draft\n")
	start := time.Now()
	o = run(t, "session-end", "codex", end)
	require.Less(t, time.Since(start), time.Second, "Codex kills SessionEnd hooks after 1 s")
	require.NoError(t, o.Err)
	run(t, "session-end", "codex", end)
	ms := notes()
	require.Len(t, ms, 1, "calling it twice saves once")
	require.Contains(t, ms[0].Text, "Add the billing package")
	require.Contains(t, ms[0].Text, "Files changed: billing.go")
	require.Contains(t, ms[0].Text, "Still uncommitted: notes.txt")
	require.Contains(t, ms[0].Text, "on branch main")
	require.Equal(t, "codex", ms[0].Agent)
	require.Equal(t, "s5", ms[0].Session)

	// more work in the same session revises the one note
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add notes")
	run(t, "session-end", "codex", end)
	ms = notes()
	require.Len(t, ms, 1)
	require.Contains(t, ms[0].Text, "Commits made (2)")
	require.Contains(t, ms[0].Text, "Worktree clean")
}

func TestStopReminder(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	run(t, "session-start", "claude", payload("claude", "SessionStart", "s6", dir, map[string]any{"source": "startup"}))
	stop := func(active bool) *hooks.Outcome {
		return run(t, "stop", "claude", payload("claude", "Stop", "s6", dir, map[string]any{"stop_hook_active": active}))
	}
	for i := 0; i < 4; i++ {
		run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "s6", dir, map[string]any{"prompt": "ok"}))
		require.Empty(t, stop(false).Output)
	}
	run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "s6", dir, map[string]any{"prompt": "ok"}))
	require.Empty(t, stop(true).Output, "never when stop_hook_active")
	o := stop(false)
	var v map[string]any
	require.NoError(t, json.Unmarshal(o.Output, &v))
	require.Equal(t, "block", v["decision"])
	require.Contains(t, v["reason"], "memory_add")
	require.Len(t, v, 2)
	require.Empty(t, stop(false).Output, "at most every 5 prompts")

	// a save resets the count
	for i := 0; i < 4; i++ {
		run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "s6", dir, map[string]any{"prompt": "ok"}))
	}
	seed(t, dir, seedMem{Text: "Saved a learning"})
	run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "s6", dir, map[string]any{"prompt": "ok"}))
	require.Empty(t, stop(false).Output)
}

func TestHooksNeverHurt(t *testing.T) {
	isolate(t)
	type tc struct {
		name  string
		event string
		stdin func(t *testing.T) (string, string) // payload, repo dir to check the log in
		log   string                              // expected in hooks.log
	}
	cases := []tc{
		{"empty stdin", "session-start", func(t *testing.T) (string, string) { return "", "" }, ""},
		{"garbage stdin", "prompt", func(t *testing.T) (string, string) { return "\x00\xffnot json at all", "" }, ""},
		{"JSON array", "session-start", func(t *testing.T) (string, string) { return "[1,2]", "" }, ""},
		{"truncated JSON", "session-start", func(t *testing.T) (string, string) { return `{"session_id":"x","cwd":"/`, "" }, ""},
		{"no cwd", "session-start", func(t *testing.T) (string, string) { return `{"session_id":"x"}`, "" }, ""},
		{"relative cwd", "session-start", func(t *testing.T) (string, string) { return `{"session_id":"x","cwd":"."}`, "" }, ""},
		{"missing dir", "session-start", func(t *testing.T) (string, string) {
			return payload("claude", "SessionStart", "x", filepath.Join(t.TempDir(), "gone"), nil), ""
		}, ""},
		{"not a repo", "session-start", func(t *testing.T) (string, string) {
			return payload("claude", "SessionStart", "x", t.TempDir(), map[string]any{"source": "startup"}), ""
		}, ""},
		{"unknown event", "pre-tool-use", func(t *testing.T) (string, string) {
			d := newRepo(t, false)
			return payload("claude", "PreToolUse", "x", d, nil), d
		}, "unknown hook event"},
		{"repo without commits: start", "session-start", func(t *testing.T) (string, string) {
			d := newRepo(t, true)
			return payload("claude", "SessionStart", "x", d, map[string]any{"source": "startup"}), d
		}, ""},
		{"repo without commits: end", "session-end", func(t *testing.T) (string, string) {
			d := newRepo(t, true)
			run(t, "session-start", "claude", payload("claude", "SessionStart", "x", d, map[string]any{"source": "startup"}))
			return payload("claude", "SessionEnd", "x", d, nil), d
		}, ""},
		{"corrupt store object", "session-start", func(t *testing.T) (string, string) {
			d := newRepo(t, false)
			ids := seed(t, d, seedMem{Type: gitstore.TypePreference, Text: "Prefer tabs"}, seedMem{Text: "The cache expires keys per tenant"})
			corruptBlob(t, d, ids[0])
			return payload("claude", "SessionStart", "x", d, map[string]any{"source": "startup"}), d
		}, "damaged"},
		{"session end without a start marker", "session-end", func(t *testing.T) (string, string) {
			d := newRepo(t, false)
			return payload("codex", "SessionEnd", "never-started", d, nil), d
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdin, dir := c.stdin(t)
			start := time.Now()
			o := run(t, c.event, "", stdin)
			require.Less(t, time.Since(start), 5*time.Second)
			require.False(t, o.TimedOut)
			if c.log != "" {
				require.Contains(t, logText(t, dir), c.log)
			}
		})
	}
	t.Run("repo without commits gets a note after its first commit", func(t *testing.T) {
		d := newRepo(t, true)
		run(t, "session-start", "claude", payload("claude", "SessionStart", "y", d, map[string]any{"source": "startup"}))
		write(t, d, "a.txt", "a\n")
		git(t, d, "add", ".")
		git(t, d, "commit", "-qm", "First")
		o := run(t, "session-end", "claude", payload("claude", "SessionEnd", "y", d, nil))
		require.NoError(t, o.Err)
		ms, err := openSet(t, d).List(gitstore.Filter{Type: gitstore.TypeSession})
		require.NoError(t, err)
		require.Len(t, ms, 1)
		require.Contains(t, ms[0].Text, "First")
	})
	t.Run("deadline yields valid output", func(t *testing.T) {
		d := newRepo(t, false)
		var out strings.Builder
		pr, pw, err := os.Pipe() // stdin that never ends
		require.NoError(t, err)
		defer pw.Close()
		defer pr.Close()
		o := hooks.Run(context.Background(), hooks.Request{Event: "session-start", In: pr, Out: &out, Now: fixedNow, Deadline: 200 * time.Millisecond})
		require.True(t, o.TimedOut)
		require.Empty(t, out.String())
		_ = d
	})
}

// corruptBlob overwrites the loose object of a memory's blob with garbage.
func corruptBlob(t *testing.T, dir, id string) {
	t.Helper()
	h := git(t, dir, "rev-parse", gitstore.RefMain+":memories/"+id[:2]+"/"+id+".json")
	p := filepath.Join(dir, ".git", "objects", h[:2], h[2:])
	gitstoretest.Damaged(dir)
	require.NoError(t, os.Chmod(p, 0o644))
	require.NoError(t, os.WriteFile(p, []byte("garbage, not zlib"), 0o644))
}

func TestIndexLockedByAnotherProcess(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir, seedMem{Text: "Stripe webhook signatures are verified with the endpoint secret"}, seedMem{Text: "Unrelated: the logo is blue"})
	// build the index, then hold its files locked as a writer would
	set := openSet(t, dir)
	_, err := index.Recall(context.Background(), set, index.Options{Query: "stripe webhook"})
	require.NoError(t, err)
	// another process holds each of the index's bolt files, as a writer would
	var bolts []string
	filepath.Walk(index.Dir(set), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".bolt") {
			bolts = append(bolts, p)
		}
		return nil
	})
	require.NotEmpty(t, bolts)
	for _, p := range bolts {
		holdLock(t, p)
	}
	start := time.Now()
	o := run(t, "prompt", "codex", payload("codex", "UserPromptSubmit", "s7", dir, map[string]any{"prompt": "how are stripe webhook signatures verified with the endpoint secret", "turn_id": "t1"}))
	require.Less(t, time.Since(start), 2500*time.Millisecond)
	require.Contains(t, injected(t, o), "endpoint secret", "a busy index falls back to the snapshot or a scan")
}

func TestTenThousandMemories(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 memories")
	}
	isolate(t)
	dir := newRepo(t, false)
	mems := corpus(10000)
	// one memory that a prompt is really about, among 10,000 that share its words
	mems[4321] = seedMem{Type: gitstore.TypeGotcha, Text: "Refund ledger reconciliation rounds amounts in cents half-even; reconcile_refunds.py fails on float amounts", Source: gitstore.SourceVerified}
	seed(t, dir, mems...)
	git(t, dir, "checkout", "-qb", "feature/refund-ledger")
	// cold: the start cache and the index are built on first use; on a slow
	// machine that may pass the deadline, which must still be harmless
	start := time.Now()
	o := run(t, "session-start", "claude", payload("claude", "SessionStart", "cold", dir, map[string]any{"source": "startup"}))
	require.Less(t, time.Since(start), 7*time.Second)
	if o.TimedOut {
		t.Logf("cold session-start passed its deadline: %v", o.Err)
	}
	// warm (as the background warm-up leaves it)
	o = run(t, "warm", "claude", payload("claude", "SessionStart", "warm", dir, nil))
	require.NoError(t, o.Err)
	start = time.Now()
	o = run(t, "session-start", "claude", payload("claude", "SessionStart", "big", dir, map[string]any{"source": "startup"}))
	require.NoError(t, o.Err)
	t.Logf("warm session-start at 10,000 memories: %v", time.Since(start))
	text := injected(t, o)
	require.LessOrEqual(t, utf8.RuneCountInString(text), handoff.StartChars)
	require.Contains(t, text, "more memories — call memory_recall")
	o = run(t, "prompt", "claude", payload("claude", "UserPromptSubmit", "big", dir, map[string]any{"prompt": "reconcile_refunds.py keeps failing on the refund ledger amounts, why?"}))
	require.NoError(t, o.Err)
	text = injected(t, o)
	require.Contains(t, text, "rounds amounts in cents half-even")
	require.LessOrEqual(t, utf8.RuneCountInString(text), handoff.PromptChars)
}

func TestHookLogIsCapped(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	logPath := filepath.Join(dir, ".git", "mem", "hooks.log")
	require.NoError(t, os.MkdirAll(filepath.Dir(logPath), 0o755))
	require.NoError(t, os.WriteFile(logPath, []byte(strings.Repeat("old error line\n", 20000)), 0o644))
	o := run(t, "no-such-event", "claude", payload("claude", "PreToolUse", "s9", dir, nil))
	require.Error(t, o.Err)
	st, err := os.Stat(logPath)
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(1024), "the full log was rotated away")
	require.FileExists(t, logPath+".1")
	require.Contains(t, logText(t, dir), "unknown hook event")
}

// holdLock has another process take an exclusive flock on path until the
// test ends (in this process when the flock command is missing).
func holdLock(t *testing.T, path string) {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
		t.Cleanup(func() { f.Close() })
		return
	}
	cmd := exec.Command("flock", "-x", path, "-c", "echo locked; exec sleep 60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, to end it with its child
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
}

// TestSessionNoteWithControlCharactersInASubject: a commit subject holding
// a CR or an escape sequence does not cost the session its note (the text
// refuses control characters); they are shown as spaces.
func TestSessionNoteWithControlCharactersInASubject(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	end := payload("codex", "SessionEnd", "s6", dir, map[string]any{"reason": "other"})
	run(t, "session-start", "codex", payload("codex", "SessionStart", "s6", dir, map[string]any{"source": "startup"}))
	write(t, dir, "billing.go", "package billing\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add billing\rHIDDEN \x1b[31mred")
	o := run(t, "session-end", "codex", end)
	require.NoError(t, o.Err)
	ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Contains(t, ms[0].Text, "Add billing HIDDEN  [31mred")
}

// TestSessionNoteWithARefusedSessionID: a payload's session id that the
// store refuses (a credential, an escape sequence) is stood for by its hash
// in the note and its commit, and the note is still recorded.
func TestSessionNoteWithARefusedSessionID(t *testing.T) {
	for _, tc := range []struct{ name, session string }{
		{"token", "ghp_" + strings.Repeat("a1B2", 9)},
		{"escape", "s7\x1b[31m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			dir := newRepo(t, false)
			end := payload("codex", "SessionEnd", tc.session, dir, map[string]any{"reason": "other"})
			run(t, "session-start", "codex", payload("codex", "SessionStart", tc.session, dir, map[string]any{"source": "startup"}))
			write(t, dir, "billing.go", "package billing\n")
			git(t, dir, "add", ".")
			git(t, dir, "commit", "-qm", "Add the billing package")
			require.NoError(t, run(t, "session-end", "codex", end).Err)
			ms, err := openSet(t, dir).List(gitstore.Filter{Type: gitstore.TypeSession})
			require.NoError(t, err)
			require.Len(t, ms, 1, "the note is recorded")
			require.Contains(t, ms[0].Text, "Add the billing package")
			require.Equal(t, "codex", ms[0].Agent)
			require.Regexp(t, `^refused-[0-9a-f]{16}$`, ms[0].Session, "the id is stood for by its hash")
			log := git(t, dir, "log", "--format=%B", "refs/memory/main")
			require.NotContains(t, log, tc.session[:6])
		})
	}
}

// TestSessionStartLooksAtTheWorktree: session start answers from the
// files the worktree is changing, not only from the branch: a memory about
// a file being changed is injected when that file is touched, and not in a
// clean worktree, in a new session and in one started again later.
func TestSessionStartLooksAtTheWorktree(t *testing.T) {
	isolate(t)
	dir := newRepo(t, false)
	seed(t, dir,
		seedMem{Text: "Invoice PDFs are rendered by billing/invoice_pdf.go with embedded fonts; never call the renderer from a request handler", Paths: []string{"billing/invoice_pdf.go"}},
		seedMem{Text: "Onboarding copy lives in the CMS, not in the repository"},
	)
	write(t, dir, "billing/invoice_pdf.go", "package billing\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "Add the renderer")
	git(t, dir, "checkout", "-qb", "feature/onboarding-copy")

	start := func(session, source string) string {
		o := run(t, "session-start", "claude", payload("claude", "SessionStart", session, dir, map[string]any{"source": source}))
		require.NoError(t, o.Err)
		if len(o.Output) == 0 {
			return ""
		}
		return injected(t, o)
	}
	clean := start("clean", "startup")
	require.Contains(t, clean, "Onboarding copy lives in the CMS", "the branch's words find it")
	require.NotContains(t, clean, "Invoice PDFs", "nothing in a clean worktree points at the renderer")

	write(t, dir, "billing/invoice_pdf.go", "package billing\n\n// changed\n")
	require.Contains(t, start("dirty", "startup"), "Invoice PDFs", "the file being changed finds its memory")
	again := start("clean", "startup")
	require.Contains(t, again, "Invoice PDFs", "a session started again looks at the worktree again")
	require.NotContains(t, again, "Onboarding copy", "and shows nothing twice")
}
