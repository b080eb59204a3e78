package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/surface"
)

// Internal deadlines per event (see the package documentation).
var deadlines = map[string]time.Duration{
	agents.EventSessionStart: 6 * time.Second,
	agents.EventPrompt:       3 * time.Second,
	agents.EventStop:         2 * time.Second,
	agents.EventSessionEnd:   700 * time.Millisecond,
	eventWarm:                5 * time.Minute,
	eventFinish:              time.Minute,
	eventLinks:               5 * time.Minute,
}

// eventWarm is the internal event of the background process a hook starts
// when it ran out of time: it brings the caches (start cache, index) up to
// date so the next hook is fast. Run by git mem hook warm.
const eventWarm = "warm"

// eventFinish is the internal event of the background process a hook that
// writes the session note starts when it ran out of time before the note
// was written: it writes it, with the time a loaded machine needs. Writing a
// note twice for the same session state changes nothing, so it is harmless
// when the hook got there after all.
const eventFinish = "finish"

// warmLockAge is how long a warm-up lock is honoured.
const warmLockAge = 5 * time.Minute

// releaseGrace is how long a hook that passed its deadline waits for its
// worker to release the locks it holds before exiting.
const releaseGrace = 500 * time.Millisecond

// maxPayload is the most stdin read; a larger payload is cut (and then
// fails to parse).
const maxPayload = 4 << 20

// ReminderText is what the stop hook tells an agent that saved nothing for
// RemindEvery prompts.
const ReminderText = "git-mem: nothing was saved to the repository's memory in the last " +
	"several prompts. If you learned something durable (a decision, a gotcha, a command, a convention), " +
	"save it now with memory_add (or git mem add -- TEXT): one fact, at most 300 characters, with its honest source. " +
	"If there is nothing worth keeping, just stop."

// Request is one hook invocation.
type Request struct {
	// Event is the argument (session-start, prompt, session-end, stop, or an
	// agent's own name for one of them).
	Event string
	// Agent is --agent; empty: detect it.
	Agent string
	In    io.Reader
	Out   io.Writer
	// Err receives diagnostics only when Debug is set.
	Err   io.Writer
	Debug bool
	// Getenv reads the environment (agent detection, deadline override).
	Getenv func(string) string
	Now    func() time.Time
	// GitDates are GIT_AUTHOR_DATE and GIT_COMMITTER_DATE of the hook's
	// environment, which the times of its commits follow.
	GitDates surface.GitDates
	// Deadline overrides the event's internal deadline.
	Deadline time.Duration
	// Later, when set, starts "hook <args...>" of this executable in the
	// background with the payload on its stdin (Background does): "warm
	// --agent <agent>" when a session-start or prompt hook passes its
	// deadline, or leaves the recall snapshot's delta due for a fold
	// (index.FoldDue); "finish --agent <agent>" when a hook that writes the
	// session note passes its deadline before the note is written.
	Later func(args []string, payload []byte)
	// MapSnapshots reads the recall snapshot through a memory map
	// (index.Access.Map): only for a process that exits once this event
	// is handled (MapsSnapshots says which events the hook binary maps).
	MapSnapshots bool
}

// Outcome says what a hook did, for tests and git mem preview.
type Outcome struct {
	Event, Agent string
	// Output is what was written to stdout (empty: nothing).
	Output []byte
	// Err is the error logged, if any; TimedOut that the deadline passed.
	Err      error
	TimedOut bool
}

// Run handles one hook invocation. It never fails: errors are logged, and
// stdout receives one valid JSON document or nothing.
func Run(ctx context.Context, r Request) *Outcome {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Getenv == nil {
		r.Getenv = func(string) string { return "" }
	}
	out := &Outcome{Event: agents.NormalizeEvent(r.Event)}
	// the background events inherit the environment of the hook that
	// started them, whose deadline override is not theirs
	background := r.Event == eventWarm || r.Event == eventFinish || r.Event == eventLinks
	if background {
		out.Event = r.Event
	}
	lg := &logger{debug: r.Debug, stderr: r.Err, now: r.Now}
	deadline := deadlines[out.Event]
	if deadline == 0 {
		deadline = 2 * time.Second
	}
	if ms, err := strconv.Atoi(r.Getenv("GIT_MEM_HOOK_DEADLINE_MS")); err == nil && ms > 0 && !background {
		deadline = time.Duration(ms) * time.Millisecond
	}
	if r.Deadline > 0 {
		deadline = r.Deadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()

	type result struct {
		data  []byte
		agent string
		err   error
	}
	done := make(chan result, 1)
	var got payloadBox
	go func() {
		// a fault reading the mapped snapshot (index.Access.Map), whose
		// file something other than git-mem truncated, is a panic here
		debug.SetPanicOnFault(true)
		var res result
		defer func() {
			if p := recover(); p != nil {
				res = result{err: fmt.Errorf("hook panicked: %v\n%s", p, debug.Stack())}
			}
			done <- res
		}()
		res.data, res.agent, res.err = handle(ctx, r, out.Event, lg, &got)
	}()
	var res result
	select {
	case res = <-done:
		out.Agent = res.agent
		// a write that found too little time left before the deadline
		// (gitstore's budget) gave up before it: the note is handed on
		// as it is when the deadline passes during the write
		if data, agent := got.get(); errors.Is(res.err, context.DeadlineExceeded) && data != nil && r.Later != nil && writesNote(out.Event, agent) {
			out.TimedOut = true
			r.Later(backgroundArgs(eventFinish, agent), data)
			res.err = fmt.Errorf("%w; the session note is being written in the background", res.err)
		}
	case <-ctx.Done():
		data, agent := got.get()
		out.Agent = agent
		if agent == "" {
			out.Agent = agents.Normalize(r.Agent)
		}
		out.TimedOut = true
		res.err = fmt.Errorf("%s hook passed its %v deadline; nothing was injected", r.Event, deadline)
		switch {
		case data == nil || r.Later == nil:
		case out.Event == agents.EventSessionStart || out.Event == agents.EventPrompt:
			r.Later(backgroundArgs(eventWarm, agent), data)
			res.err = fmt.Errorf("%w; caches are being brought up to date in the background", res.err)
		case writesNote(out.Event, agent):
			// started before the worker lets go of the note's lock: an
			// agent may kill a hook soon after its own timeout
			r.Later(backgroundArgs(eventFinish, agent), data)
			res.err = fmt.Errorf("%w; the session note is being written in the background", res.err)
		}
		// The worker sees ctx end and stops; a lock it holds (a ref's, a
		// session note's) is released before the process exits, or the next
		// writer and git itself would find it.
		grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), releaseGrace)
		if !lockfile.WaitReleased(grace) {
			res.err = fmt.Errorf("%w; a lock was still held %v later", res.err, releaseGrace)
		}
		cancelGrace()
	}
	if res.err != nil {
		out.Err = res.err
		lg.log(out, res.err)
	}
	if len(res.data) > 0 && json.Valid(res.data) {
		out.Output = append(res.data, '\n')
		if _, err := r.Out.Write(out.Output); err != nil {
			lg.log(out, err)
		}
	}
	return out
}

// payloadBox hands the payload read by the worker, and the agent it comes
// from, to Run.
type payloadBox struct {
	mu    sync.Mutex
	data  []byte
	agent string
}

func (b *payloadBox) set(d []byte, agent string) {
	b.mu.Lock()
	b.data, b.agent = d, agent
	b.mu.Unlock()
}

func (b *payloadBox) get() ([]byte, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data, b.agent
}

// backgroundArgs are the arguments of a background event for agent's hook:
// the agent is named, as a payload alone does not always tell it (Qwen
// Code's are Claude Code's).
func backgroundArgs(event, agent string) []string {
	if agent == "" {
		return []string{event}
	}
	return []string{event, "--agent", agent}
}

// writesNote says whether the hook of event writes the session note.
// Cursor builds without sessionEnd, and Qwen Code's -p runs, never fire it:
// their stop hook writes the note.
func writesNote(event, agent string) bool {
	return event == agents.EventSessionEnd ||
		event == agents.EventStop && (agent == agents.Cursor || agent == agents.Qwen)
}

// handle does the work of one event and returns the output (nil: nothing).
func handle(ctx context.Context, r Request, event string, lg *logger, got *payloadBox) (out []byte, agent string, err error) {
	data, err := io.ReadAll(io.LimitReader(r.In, maxPayload))
	if err != nil {
		return nil, agents.Normalize(r.Agent), fmt.Errorf("reading the hook payload: %w", err)
	}
	p, perr := agents.ParsePayload(data)
	agent = agents.Normalize(r.Agent)
	if agent == "" {
		agent = agents.Detect(p, r.Getenv)
	}
	got.set(data, agent)
	if perr != nil {
		return nil, agent, perr
	}
	// a session id the store refuses (a token, an escape sequence) is
	// stood for by its hash: the session's events still find each other,
	// and what it did is recorded without the id
	if id := p.Session(); !uuidShaped(id) && (gitstore.Writer{Session: id}).Check() != nil {
		sum := sha256.Sum256([]byte(id))
		p.SessionID, p.ConversationID = "refused-"+hex.EncodeToString(sum[:8]), ""
	}
	out, err = handlePayload(ctx, r, event, agent, p, data, lg)
	return out, agent, err
}

// uuidShaped reports an id of 8-4-4-4-12 hex digits, as the agents' session
// ids are: it passes the store's rules for a writer's name as it is, so the
// hooks need not load the secret scanner to check it on every prompt.
func uuidShaped(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func handlePayload(ctx context.Context, r Request, event, agent string, p *agents.Payload, payload []byte, lg *logger) ([]byte, error) {
	dir := p.Dir()
	if dir == "" {
		return nil, fmt.Errorf("%w: the hook payload has no cwd", memerr.ErrInvalid)
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: the hook payload's cwd %q is not an absolute path", memerr.ErrInvalid, dir)
	}
	// the payload's cwd decides the repository, never an inherited GIT_DIR
	repo, err := gitstore.OpenIn(dir)
	if errors.Is(err, memerr.ErrNoRepo) {
		return nil, nil // not a repository: nothing to remember, nothing to say
	}
	if err != nil {
		return nil, err
	}
	lg.setPath(repo.Mem().HooksLog())
	if repo.WorkTree == "" {
		return nil, nil
	}
	clock := surface.Clock{Now: r.Now, Dates: r.GitDates}
	if err := surface.UseClock(repo, clock); err != nil {
		return nil, err
	}
	if event == "" {
		return nil, fmt.Errorf("%w: unknown hook event %q; use one of %s", memerr.ErrInvalid, r.Event, strings.Join(agents.Events, ", "))
	}
	if event == agents.EventSessionStart && p.Source != "compact" {
		// the session's look at the worktree, the longest part of a
		// session start, begins before the rest is opened
		repo.StartWorktreeStatus(ctx)
	}
	set := &gitstore.Set{Repo: repo}
	if pers, _, err := gitstore.OpenPersonal(false); err == nil && surface.UseClock(pers, clock) == nil {
		set.Personal = pers
	}
	surface.AttachLinks(set, clock)
	sessions, err := handoff.OpenSessions(repo)
	if err != nil {
		return nil, err
	}
	// a short-lived hook's display ids read the view of the snapshot its
	// recall opened (Access.KeepViews)
	acc := index.Access{Map: r.MapSnapshots, KeepViews: r.MapSnapshots}
	h := &handler{req: r, p: p, agent: agent, set: set, repo: repo, sessions: sessions, now: r.Now().UTC(), access: acc}
	if event == agents.EventSessionStart || event == agents.EventPrompt || event == eventWarm {
		h.mergeFetched(ctx, lg, event)
	}
	defer func() { // invalid documents the reads skipped: the store keeps working, the log says why
		for _, sr := range []*gitstore.Repo{repo, set.Personal} {
			if sr == nil {
				continue
			}
			for _, d := range sr.Skipped() {
				lg.log(&Outcome{Event: event, Agent: agent}, fmt.Errorf("warning: %w", d))
			}
		}
		// an embedding endpoint that failed is said once per outage (nothing
		// is read without git config mem.embed.url)
		if msg := embedding.Unreported(repo); msg != "" {
			lg.log(&Outcome{Event: event, Agent: agent}, errors.New("warning: "+msg))
		}
	}()
	switch event {
	case eventWarm:
		return nil, h.warm(ctx)
	case eventFinish:
		// in the background, with time to fold the snapshot's delta itself
		return nil, h.end(ctx)
	case eventLinks:
		return nil, h.refreshLinks(ctx)
	}
	// folding the recall snapshot's delta into a new base rewrites the
	// whole file (about a second at 100,000 memories): a hook leaves it to
	// a warm-up in the background
	h.access.DeferFolds = true
	out, err := h.handle(ctx, event)
	if r.Later != nil && index.FoldDue(set) {
		r.Later(backgroundArgs(eventWarm, agent), payload)
	}
	if r.Later != nil && event == agents.EventSessionEnd && h.linksDue() {
		r.Later(backgroundArgs(eventLinks, agent), payload)
	}
	return out, err
}

func (h *handler) handle(ctx context.Context, event string) ([]byte, error) {
	switch event {
	case agents.EventSessionStart:
		return h.sessionStart(ctx)
	case agents.EventPrompt:
		return h.prompt(ctx)
	case agents.EventSessionEnd:
		return nil, h.end(ctx)
	case agents.EventStop:
		return h.stop(ctx)
	}
	return nil, nil
}

type handler struct {
	req      Request
	p        *agents.Payload
	agent    string
	set      *gitstore.Set
	repo     *gitstore.Repo
	sessions *handoff.Sessions
	now      time.Time
	// access is how this event reads and writes the recall snapshot
	access index.Access
}

func (h *handler) writer() gitstore.Writer {
	w := gitstore.Writer{Agent: agents.WriterName(h.agent), Session: h.p.Session()}
	if h.p.Subagent() {
		w.Subagent = strings.Trim(h.p.AgentType+":"+h.p.AgentID, ":")
	}
	// a subagent's name the store refuses is left out, as a session id is
	if (gitstore.Writer{Subagent: w.Subagent}).Check() != nil {
		w.Subagent = ""
	}
	return w
}

func (h *handler) sessionStart(ctx context.Context) ([]byte, error) {
	if h.p.Source == "compact" {
		// the context is being compacted, not started: the marker, nothing new
		_, _, err := h.sessions.Start(ctx, h.p.Session(), agents.WriterName(h.agent), h.now)
		return nil, err
	}
	// The marker's look at the worktree (a proof from its files, else a
	// git process) runs alongside: the caches that do not depend on it are
	// read meanwhile, and the answer for the common case, a new session in
	// a clean worktree, is worked out; it is kept when that is what the
	// session is.
	begun := h.beginSession(ctx)
	o := startOptions(h.repo, h.now)
	o.Access = h.access
	var err error
	o.Prepared, err = handoff.PrepareStart(ctx, h.set, o)
	var guess *handoff.StartResult
	if err == nil {
		guess, err = handoff.SessionStart(ctx, h.set, o)
	}
	b := <-begun
	if b.err != nil {
		return nil, b.err
	}
	m := b.m
	res := guess
	if resumed := b.existed && !m.Injected.IsZero(); err == nil && (resumed || len(b.touched) > 0) {
		o.Touched = b.touched
		if resumed {
			o.Exclude = h.sessions.Shown(m.Session)
			if h.p.Source == "resume" {
				o.Since = m.Injected
			}
		}
		res, err = handoff.SessionStart(ctx, h.set, o)
	}
	// a hook that fails still writes a new session's marker: without it,
	// the session's end would have no note to write
	failed := func(err error) ([]byte, error) {
		if !b.existed {
			if serr := h.sessions.Save(m); serr != nil && !cannotWrite(serr) {
				err = errors.Join(err, serr)
			}
		}
		return nil, err
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return failed(err)
	}
	// the session's files could not be written (.git read-only): inject
	// what recall answers all the same, and log why nothing was recorded
	var unsaved error
	if err := h.sessions.MarkShown(m.Session, res.IDs); err != nil {
		if !cannotWrite(err) {
			return failed(err)
		}
		unsaved = err
	}
	// a new session's marker is written here, once, with the time of its
	// injection
	m.Injected = h.now
	if unsaved == nil {
		if err := h.sessions.Save(m); err != nil {
			if !cannotWrite(err) {
				return nil, err
			}
			unsaved = err
		}
	}
	out, err := Output(h.agent, agents.EventSessionStart, res.Text)
	if err == nil && unsaved != nil {
		err = unsavedErr(unsaved)
	}
	return out, err
}

// cannotWrite reports an error of a file git-mem may not write: a
// read-only .git (permissions, a read-only mount).
func cannotWrite(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// unsavedErr is what the log says of a hook that injected without
// recording the session.
func unsavedErr(err error) error {
	return fmt.Errorf("injected, but the session could not be recorded (is .git read-only?): %w", err)
}

// begunSession is a session's start marker and the files its worktree is
// changing.
type begunSession struct {
	m       *handoff.Marker
	existed bool
	touched []string
	err     error
}

// beginSession finds the session's start marker, or makes a new one (not
// yet written: sessionStart writes it), and looks at the worktree, in the
// background.
func (h *handler) beginSession(ctx context.Context) <-chan begunSession {
	out := make(chan begunSession, 1)
	go func() {
		var b begunSession
		defer func() {
			if p := recover(); p != nil {
				b = begunSession{err: fmt.Errorf("hook panicked: %v\n%s", p, debug.Stack())}
			}
			out <- b
		}()
		b.m, b.existed, b.err = h.sessions.Begin(ctx, h.p.Session(), agents.WriterName(h.agent), h.now)
		if b.err != nil {
			return
		}
		if b.existed {
			// the marker's worktree is from the start; look again
			b.touched, _ = h.repo.WorktreeChanges(ctx)
		} else {
			b.touched = b.m.Dirty // just computed for the marker
		}
	}()
	return out
}

// StartOptionsFor are the session-start options in a repository: branch,
// files being changed, and the cap from git config mem.injectChars.
func StartOptionsFor(ctx context.Context, repo *gitstore.Repo, now time.Time) handoff.StartOptions {
	o := startOptions(repo, now)
	o.Touched, _ = repo.WorktreeChanges(ctx)
	return o
}

func startOptions(repo *gitstore.Repo, now time.Time) handoff.StartOptions {
	return handoff.StartOptions{
		Branch: repo.Head().Branch, Now: now, MaxChars: repo.Config().Int("mem", "injectChars", handoff.StartChars),
		// Memories written by subagents are left out unless git config mem.injectSubagents is true.
		Subagents: repo.Config().Bool("mem", "injectSubagents", false),
	}
}

// warm brings the start cache and the index up to date, once at a time.
// First, for the session-start or prompt hook whose payload it has, it
// records the session's start if that hook ran out of time before it did:
// without a marker, the session's end would have no note to write.
func (h *handler) warm(ctx context.Context) error {
	if ev := agents.NormalizeEvent(h.p.HookEventName); (ev == agents.EventSessionStart || ev == agents.EventPrompt) && h.p.Session() != "" {
		if _, err := h.marker(ctx); err != nil {
			return err
		}
	}
	lock := h.repo.Mem().WarmLock()
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		return err
	}
	if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) > warmLockAge {
		os.Remove(lock)
	}
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil // another warm-up is running
	}
	f.Close()
	defer os.Remove(lock)
	o := StartOptionsFor(ctx, h.repo, h.now)
	o.Access = h.access
	o.Touched = append(o.Touched, "warm-up index")
	if _, err = handoff.SessionStart(ctx, h.set, o); err != nil {
		return err
	}
	// git-mem brought its bleve index forward above; the hook binary reads
	// the snapshot instead
	return h.access.Refresh(ctx, h.set)
}

func (h *handler) marker(ctx context.Context) (*handoff.Marker, error) {
	m, _, err := h.sessions.Start(ctx, h.p.Session(), agents.WriterName(h.agent), h.now)
	return m, err
}

func (h *handler) prompt(ctx context.Context) ([]byte, error) {
	m, _, err := h.sessions.Start(ctx, h.p.Session(), agents.WriterName(h.agent), h.now)
	// the session's files could not be written (.git read-only): inject
	// what recall answers all the same, and log why nothing was recorded
	var unsaved error
	if err != nil && m != nil && cannotWrite(err) {
		unsaved, err = err, nil
	}
	if err != nil {
		return nil, err
	}
	if unsaved == nil {
		if err := h.sessions.CountPrompt(m); err != nil {
			if !cannotWrite(err) {
				return nil, err
			}
			unsaved = err
		}
	}
	if h.agent == agents.Cursor {
		return nil, nil // Cursor's beforeSubmitPrompt cannot add context
	}
	shown := h.sessions.Shown(m.Session)
	limit := h.repo.Config().Int("mem", "promptChars", handoff.PromptChars)
	res, err := handoff.Prompt(ctx, h.set, h.p.Prompt, shown, h.repo.Head().Branch, h.now, limit, h.access)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if unsaved == nil {
		if err := h.sessions.MarkShown(m.Session, res.IDs); err != nil {
			if !cannotWrite(err) {
				return nil, err
			}
			unsaved = err
		}
	}
	out, err := Output(h.agent, agents.EventPrompt, res.Text)
	if err == nil && unsaved != nil {
		err = unsavedErr(unsaved)
	}
	return out, err
}

func (h *handler) end(ctx context.Context) error {
	o := handoff.EndOptions{Writer: h.writer(), Now: h.now}
	if h.p.Subagent() {
		o.Subagent = h.p.AgentType
		if o.Subagent == "" {
			o.Subagent = "subagent"
		}
	}
	note, err := h.sessions.End(ctx, h.p.Session(), o)
	if errors.Is(err, memerr.ErrNotFound) {
		return nil // no start marker: the session began before git-mem was installed
	}
	if err == nil && note != nil {
		// the next session-start finds the snapshot current (best effort:
		// a stale one is brought forward by its reader)
		_ = h.access.Refresh(ctx, h.set)
	}
	return err
}

func (h *handler) stop(ctx context.Context) ([]byte, error) {
	if writesNote(agents.EventStop, h.agent) {
		return nil, h.end(ctx)
	}
	if h.p.StopHookActive || h.agent == agents.Gemini || h.p.Subagent() {
		return nil, nil
	}
	m, err := h.sessions.Load(h.p.Session())
	if err != nil || m == nil {
		return nil, err
	}
	remind, err := h.sessions.Remind(ctx, m)
	if err != nil || !remind {
		return nil, err
	}
	return stringObject("decision", "block", "reason", ReminderText), nil
}

// Output is the JSON an agent expects for an injection of text at an
// event; nil when text is empty.
func Output(agent, event, text string) ([]byte, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if agent == agents.Cursor {
		if event != agents.EventSessionStart {
			return nil, nil
		}
		return stringObject("additional_context", text), nil
	}
	if agent == agents.Copilot {
		// the Copilot CLI passes on a top-level additionalContext and drops
		// hookSpecificOutput (measured, docs/agents.md)
		if event != agents.EventSessionStart && event != agents.EventPrompt {
			return nil, nil
		}
		return stringObject("additionalContext", text), nil
	}
	name := ""
	switch event {
	case agents.EventSessionStart:
		name = "SessionStart"
	case agents.EventPrompt:
		name = "UserPromptSubmit"
		if agent == agents.Gemini {
			name = "BeforeAgent"
		}
	default:
		return nil, nil
	}
	out := make([]byte, 0, objectSize("hookEventName", name, "additionalContext", text)+len(`{"hookSpecificOutput":}`))
	out = appendObject(append(out, `{"hookSpecificOutput":`...), "hookEventName", name, "additionalContext", text)
	return append(out, '}'), nil
}

// stringObject is the JSON object of the given keys and string values, in
// that order. Hooks write their output with it: encoding/json would first
// reflect over a struct or map type, which a process that lives for
// milliseconds pays every time.
func stringObject(kv ...string) []byte {
	return appendObject(make([]byte, 0, objectSize(kv...)), kv...)
}

// objectSize is room for stringObject's object of kv: the strings, their
// quotes and separators, and some escapes.
func objectSize(kv ...string) int {
	n := 2
	for _, s := range kv {
		n += len(s) + len(s)/16 + 4
	}
	return n
}

func appendObject(b []byte, kv ...string) []byte {
	b = append(b, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, kv[i]), ':')
		b = appendJSONString(b, kv[i+1])
	}
	return append(b, '}')
}

// appendJSONString appends s as encoding/json writes a string, without its
// HTML escapes (agents show the text as it is): the escapes of a quote, a
// backslash and the control characters (\b, \f, \n, \r and \t by their
// letters), U+FFFD for a byte that is not UTF-8, and U+2028 and U+2029
// escaped. Written here, it costs no encoder and no buffer of its own, the
// largest part of a hook's output after its text.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// Log file limits: past logMaxBytes the log becomes hooks.log.1 (replacing
// the previous one), so the two never take more than twice that.
const logMaxBytes = 256 << 10

type logger struct {
	mu     sync.Mutex
	path   string // the hooks log (memdir.Dir.HooksLog); "" before the repository is known
	debug  bool
	stderr io.Writer
	now    func() time.Time
}

func (l *logger) setPath(path string) {
	l.mu.Lock()
	l.path = path
	l.mu.Unlock()
}

func (l *logger) log(o *Outcome, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := fmt.Sprintf("%s %s %s: %s\n", l.now().UTC().Format(time.RFC3339), o.Event, o.Agent, strings.ReplaceAll(err.Error(), "\n", "\n    "))
	if l.debug && l.stderr != nil {
		io.WriteString(l.stderr, "git mem hook: "+line)
	}
	if l.path == "" {
		return
	}
	p := l.path
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	if st, err := os.Stat(p); err == nil && st.Size()+int64(len(line)) > logMaxBytes {
		os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}

// ParseArgs reads a hook's command line, "[hook] EVENT [--agent NAME |
// --agent=NAME]", the way every hook entry point must: it never fails. The
// leading "hook" lets the command line of "git-mem hook ..." run unchanged;
// git's -C PATH (or --directory PATH) is skipped with its value (the
// repository comes from the payload); --agent without a value, unknown
// flags, extra arguments and everything after "--" are ignored.
func ParseArgs(args []string) (event, agent string) {
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return event, agent
		case a == "--agent" || a == "-agent":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				agent = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--agent=") || strings.HasPrefix(a, "-agent="):
			agent = a[strings.Index(a, "=")+1:]
		case a == "-C" || a == "--directory":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		case a == "hook" && event == "":
		case event == "":
			event = a
		}
	}
	return event, agent
}
