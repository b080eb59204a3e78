package cmd_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/cmd"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/secret"
)

// corpusJoin splits a fake credential in fixtures/secrets where a scanner of
// pushed code would otherwise see a whole token (secret_test.go reads the
// files the same way).
const corpusJoin = "{+}"

// corpusLine is one line of fixtures/secrets: a fake credential (with the
// parts a leak would show, needles) or a look-alike.
type corpusLine struct {
	n       int
	text    string
	needles []string
}

func readCorpus(t *testing.T, name string, withKind bool) []corpusLine {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "fixtures", "secrets", name))
	require.NoError(t, err)
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.ReplaceAll(sc.Text(), corpusJoin, "")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if withKind {
			_, l, _ = strings.Cut(l, " | ")
		}
		c := corpusLine{n: n, text: l}
		for _, f := range secret.Scan(l) {
			c.needles = append(c.needles, l[f.Start:f.End])
		}
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	return out
}

// outcome is what a write path did with one value.
type outcome int

const (
	stored  outcome = iota // written (or reinforcing what was)
	refused                // refused as a credential
	other                  // refused for another reason (an invalid tag, a key too long)
)

// writePath sends one corpus line through one way of writing memory.
type writePath struct {
	name string
	// write writes line through the path and says what happened.
	write func(t *testing.T, w *corpusWriter, line string) outcome
	// lookalike, when set, is the value a look-alike is written as (a tag
	// cannot hold spaces); "" skips the line on this path.
	lookalike func(line string) string
	// limit, when set, is the longest value the path takes: a longer
	// credential may be refused for its length instead (nothing is stored
	// either way).
	limit int
}

// corpusWriter is one sandbox repository a path writes into, with what the
// paths need: a memory to dispute or revise, a source of distinct texts.
type corpusWriter struct {
	sb   *sandbox
	rnd  *rand.Rand
	base string // full id of a memory to dispute and revise
	mcp  *mcpConn
}

// uniqueText is a text no other memory of the run resembles, so that the
// duplicate check of add never turns a write into a reinforcement.
func (w *corpusWriter) uniqueText() string {
	var words []string
	for range 5 {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte('a' + w.rnd.Intn(26))
		}
		words = append(words, string(b))
	}
	return strings.Join(words, " ")
}

// cli runs git mem in-process and classifies its answer.
func (w *corpusWriter) cli(t *testing.T, args ...string) outcome {
	t.Helper()
	_, errOut, code := w.sb.run(args...)
	switch {
	case code == 0:
		return stored
	case strings.Contains(errOut, memerr.ErrSecret.Error()):
		return refused
	}
	t.Logf("git mem %s: exit %d: %s", args[0], code, errOut)
	return other
}

func tagFields(line string) string {
	var tags []string
	for _, f := range strings.Fields(line) {
		if (&gitstore.NewMemory{Text: "a tag's test", Tags: []string{f}, AllowSecret: true}).Validate() == nil && len(tags) < gitstore.MaxTags {
			tags = append(tags, f)
		}
	}
	return strings.Join(tags, "\n")
}

func keyLine(line string) string {
	if len(line) > gitstore.MaxKeyBytes {
		return ""
	}
	return line
}

func same(line string) string { return line }

// cliPaths are the ways of writing memory from the command line.
func cliPaths() []writePath {
	return []writePath{
		{name: "add text", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "add", "--", line)
		}},
		{name: "add --key", lookalike: keyLine, limit: gitstore.MaxKeyBytes, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "add", "--key", line, "--", w.uniqueText())
		}},
		{name: "add --tag", lookalike: tagFields, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			args := []string{"add"}
			for _, tag := range strings.Split(line, "\n") {
				args = append(args, "--tag", tag)
			}
			return w.cli(t, append(args, "--", w.uniqueText())...)
		}},
		{name: "add --path", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "add", "--path", line, "--", w.uniqueText())
		}},
		{name: "dispute --reason", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "dispute", w.base, "--reason", line)
		}},
		{name: "revise text", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "revise", w.base, "--", line)
		}},
		{name: "revise --key", lookalike: keyLine, limit: gitstore.MaxKeyBytes, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "revise", w.base, "--key", line)
		}},
		{name: "add --agent", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "add", "--agent", line, "--", w.uniqueText())
		}},
		{name: "handoff --next", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "handoff", "--next", line)
		}},
		{name: "handoff --warn", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.cli(t, "handoff", "--done", w.uniqueText(), "--warn", line)
		}},
	}
}

// importOne imports one file holding data and classifies its one item.
func (w *corpusWriter) importOne(t *testing.T, name, data string) outcome {
	t.Helper()
	p := filepath.Join(w.sb.home, "in", name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	out, errOut, _ := w.sb.run("import", "--json", p)
	var rep struct {
		Items []struct{ Action, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "%s %s", out, errOut)
	require.Len(t, rep.Items, 1, "%s: %s", name, out)
	switch it := rep.Items[0]; {
	case it.Action != "refused":
		return stored
	case strings.Contains(it.Reason, memerr.ErrSecret.Error()):
		return refused
	default:
		t.Logf("import %s: %s", name, it.Reason)
		return other
	}
}

// restoreRecord is a JSONL record of git mem export with one restore field
// set to value.
func (w *corpusWriter) restoreRecord(field, value string) string {
	id := fmt.Sprintf("%016x", w.rnd.Uint64())
	rec := map[string]any{"id": id, "type": "fact", "text": w.uniqueText(), "source": "user",
		"created": "2026-11-01T08:00:00Z", "updated": "2026-11-01T08:00:00Z", "valid_from": "2026-11-01T08:00:00Z"}
	switch field {
	case "anchor branch":
		rec["anchor"] = map[string]any{"commit": strings.Repeat("ab", 20), "branch": value}
	case "origin file":
		rec["origin"] = map[string]any{"file": value, "line": 3}
	case "events' agent":
		rec["events"] = []map[string]any{{"op": "confirm", "at": "2026-11-02T08:00:00Z", "agent": value}}
	default:
		rec[field] = value
	}
	data, _ := json.Marshal(rec)
	return string(data) + "\n"
}

func importPaths() []writePath {
	paths := []writePath{
		{name: "import Markdown", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.importOne(t, fmt.Sprintf("notes-%d.md", w.rnd.Int()), "# Notes\n\n- "+line+"\n")
		}},
		{name: "import JSONL text", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			data, _ := json.Marshal(map[string]any{"text": line})
			return w.importOne(t, fmt.Sprintf("mem-%d.jsonl", w.rnd.Int()), string(data)+"\n")
		}},
	}
	for _, field := range []string{"agent", "subagent", "session", "author", "anchor branch", "origin file", "events' agent"} {
		paths = append(paths, writePath{name: "import JSONL restore " + field, lookalike: same,
			write: func(t *testing.T, w *corpusWriter, line string) outcome {
				return w.importOne(t, fmt.Sprintf("export-%d.jsonl", w.rnd.Int()), w.restoreRecord(field, line))
			}})
	}
	return paths
}

// mcpConn is one MCP session with git mem mcp, served in-process.
type mcpConn struct {
	rpc  *rpcClient
	next int
}

func (c *mcpConn) add(t *testing.T, args map[string]any) outcome {
	t.Helper()
	c.next++
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": "tools/call",
		"params": map[string]any{"name": "memory_add", "arguments": args}})
	c.rpc.send(string(data))
	res := c.rpc.recv(c.next)
	if e, ok := res["error"]; ok {
		t.Logf("memory_add: %v", e)
		return other
	}
	r := res["result"].(map[string]any)
	if r["isError"] != true {
		return stored
	}
	text, _ := json.Marshal(r["content"])
	if strings.Contains(string(text), "contains a secret") {
		return refused
	}
	t.Logf("memory_add: %s", text)
	return other
}

func openMCP(t *testing.T, dir string) *mcpConn {
	serveMCPInProcess(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	env := &cmd.Env{Streams: cmd.Streams{In: inR, Out: outW, Err: &errb}, Dir: dir,
		Getenv: func(string) string { return "" }, Now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		cmd.Run(ctx, env, []string{"mcp"})
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-done:
		case <-time.After(time.Minute):
		}
		cancel()
	})
	rpc := newRPCClient(t, inW, outR, &errb)
	rpc.initialize("claude-code")
	rpc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return &mcpConn{rpc: rpc, next: 1}
}

func mcpPaths() []writePath {
	return []writePath{
		{name: "MCP memory_add text", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.mcp.add(t, map[string]any{"text": line})
		}},
		{name: "MCP memory_add keys", lookalike: keyLine, limit: gitstore.MaxKeyBytes, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.mcp.add(t, map[string]any{"text": w.uniqueText(), "keys": []string{line}})
		}},
		{name: "MCP memory_add paths", lookalike: same, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.mcp.add(t, map[string]any{"text": w.uniqueText(), "paths": []string{line}})
		}},
		{name: "MCP memory_add tags", lookalike: tagFields, write: func(t *testing.T, w *corpusWriter, line string) outcome {
			return w.mcp.add(t, map[string]any{"text": w.uniqueText(), "tags": strings.Split(line, "\n")})
		}},
	}
}

// memoryDump is everything the memory refs hold: every commit message and
// every version of every document.
func memoryDump(t *testing.T, sb *sandbox) string {
	t.Helper()
	c := exec.Command("git", "-C", sb.repo, "log", "--glob=refs/memory", "-p", "--format=%B%n%an <%ae>")
	c.Env = sb.env()
	out, err := c.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// leaked returns the needles of a credential found in the dump: as
// written, lower-cased (a tag) or with "//" made "/" (a cleaned path).
func leaked(dump string, needles []string) []string {
	low := strings.ToLower(dump)
	var out []string
	for _, n := range needles {
		l := strings.ToLower(n)
		if strings.Contains(low, l) || strings.Contains(low, strings.ReplaceAll(l, "//", "/")) {
			out = append(out, n)
		}
	}
	return out
}

// TestSecretCorpusOnEveryWritePath sends every fake credential of
// fixtures/secrets/secrets.txt and every look-alike of lookalikes.txt through
// every way memory is written: the CLI's add (text, --key, --tag, --path),
// dispute, revise (text, --key), handoff, import (Markdown, JSONL text, and
// each restore field of an export record), MCP memory_add (text, keys,
// paths, tags) and the session note (commit subjects, file names). Every
// credential must be refused as a secret and no part of it may reach the
// memory refs; every look-alike must be stored. The counts are logged.
func TestSecretCorpusOnEveryWritePath(t *testing.T) {
	if testing.Short() {
		t.Skip("writes every corpus line through every path")
	}
	secrets := readCorpus(t, "secrets.txt", true)
	lookalikes := readCorpus(t, "lookalikes.txt", false)
	for _, s := range secrets {
		require.NotEmpty(t, s.needles, "secrets.txt:%d is not a credential to the rules", s.n)
	}
	var paths []writePath
	paths = append(paths, cliPaths()...)
	paths = append(paths, importPaths()...)
	paths = append(paths, mcpPaths()...)
	var summary []string
	for i, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			sb.git("commit", "-q", "--allow-empty", "-m", "init")
			w := &corpusWriter{sb: sb, rnd: rand.New(rand.NewSource(int64(i + 1)))}
			out := mustRun(t, sb, "add", "--json", "--", "The billing service retries webhooks three times")
			var m struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(out), &m))
			w.base = m.ID
			if strings.HasPrefix(p.name, "MCP") {
				w.mcp = openMCP(t, sb.repo)
			}
			refusedN, tooLong := 0, 0
			for _, s := range secrets {
				got := p.write(t, w, s.text)
				switch {
				case got == refused:
					refusedN++
				case got == other && p.limit > 0 && len(s.text) > p.limit:
					tooLong++
				default:
					t.Errorf("secrets.txt:%d through %s: %v, want refused as a secret: %q", s.n, p.name, got, s.text)
				}
			}
			dump := memoryDump(t, sb)
			for _, s := range secrets {
				if l := leaked(dump, s.needles); len(l) > 0 {
					t.Errorf("secrets.txt:%d through %s: the memory refs hold %q", s.n, p.name, l)
				}
			}
			storedN, skipped, wrong := 0, 0, 0
			for _, l := range lookalikes {
				v := p.lookalike(l.text)
				if v == "" {
					skipped++
					continue
				}
				switch got := p.write(t, w, v); got {
				case stored:
					storedN++
				case refused:
					wrong++
					t.Errorf("lookalikes.txt:%d through %s: refused as a secret: %q", l.n, p.name, v)
				default:
					skipped++
				}
			}
			long := ""
			if tooLong > 0 {
				long = fmt.Sprintf(" (+%d refused as longer than %d bytes)", tooLong, p.limit)
			}
			summary = append(summary, fmt.Sprintf("%-34s credentials refused %3d/%d%s, look-alikes refused %d (stored %d, not applicable %d)",
				p.name, refusedN, len(secrets), long, wrong, storedN, skipped))
		})
	}
	t.Run("session note", func(t *testing.T) {
		line := sessionNoteCorpus(t, secrets, lookalikes)
		summary = append(summary, line...)
	})
	for _, s := range summary {
		t.Log(s)
	}
}

// sessionNoteCorpus runs sessions whose commits carry the corpus in their
// subjects and in the names of the files they add, 15 lines a session (a
// note lists 20 commits and 30 files), and returns the summary lines.
func sessionNoteCorpus(t *testing.T, secrets, lookalikes []corpusLine) []string {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	sessions := 0
	// the hooks run as an agent runs them: the binary, in a process of its
	// own (a hook may start itself again in the background, which a test
	// binary cannot stand in for), with a deadline long enough that the
	// note is written before the hook exits
	hook := func(payload, event string) {
		c := exec.Command(binary, "hook", event)
		c.Dir = sb.repo
		c.Env = append(sb.env(), "GIT_MEM_HOOK_DEADLINE_MS=30000")
		c.Stdin = strings.NewReader(payload)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	session := func(commit func(i int, l corpusLine), lines []corpusLine) {
		for start := 0; start < len(lines); start += 15 {
			sessions++
			id := fmt.Sprintf("corpus-%d", sessions)
			payload := func(event string) string {
				data, _ := json.Marshal(map[string]any{"session_id": id, "cwd": sb.repo, "hook_event_name": event, "source": "startup", "reason": "other"})
				return string(data)
			}
			hook(payload("SessionStart"), "session-start")
			for i, l := range lines[start:min(start+15, len(lines))] {
				commit(start+i, l)
			}
			hook(payload("SessionEnd"), "session-end")
		}
	}
	subject := func(i int, l corpusLine) { sb.git("commit", "-q", "--allow-empty", "-m", l.text) }
	// fileName is the name a line is written as: the line itself, or for a
	// line with a slash the credential alone when the rules find it alone.
	fileName := func(l corpusLine, isSecret bool) string {
		if !strings.Contains(l.text, "/") && len(l.text) <= 200 {
			return l.text
		}
		if !isSecret {
			if n := strings.ReplaceAll(l.text, "/", "_"); len(n) <= 200 {
				return n
			}
			return ""
		}
		for _, n := range l.needles {
			if !strings.Contains(n, "/") && len(n) <= 200 && len(secret.Scan(n)) > 0 {
				return n
			}
		}
		return ""
	}
	addFile := func(name string) {
		require.NoError(t, os.WriteFile(filepath.Join(sb.repo, name), []byte("x\n"), 0o644))
		sb.git("add", "--", name)
		sb.git("commit", "-q", "-m", "add a file")
	}
	notes := func() int {
		out := mustRun(t, sb, "list", "--type", "session", "--all")
		return countLines(out)
	}

	var summary []string
	before := notes()
	session(subject, secrets)
	var named []corpusLine
	for _, l := range secrets {
		if fileName(l, true) != "" {
			named = append(named, l)
		}
	}
	session(func(_ int, l corpusLine) { addFile(fileName(l, true)) }, named)
	require.Greater(t, notes(), before, "the sessions wrote their notes")
	dump := memoryDump(t, sb)
	leaks := 0
	for _, s := range secrets {
		if l := leaked(dump, s.needles); len(l) > 0 {
			leaks++
			t.Errorf("secrets.txt:%d in a commit subject or file name: the session note holds %q", s.n, l)
		}
	}
	summary = append(summary,
		fmt.Sprintf("%-34s credentials refused %3d/%d", "session note, commit subjects", len(secrets)-leaks, len(secrets)),
		fmt.Sprintf("%-34s credentials refused %3d/%d (the others hold a slash, which no file name can)", "session note, file names", len(named), len(secrets)))

	session(subject, lookalikes)
	var lnamed []corpusLine
	for _, l := range lookalikes {
		if fileName(l, false) != "" {
			lnamed = append(lnamed, l)
		}
	}
	session(func(_ int, l corpusLine) { addFile(fileName(l, false)) }, lnamed)
	dump = memoryDump(t, sb)
	// the dump is of JSON documents
	inDump := func(s string) bool {
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		return strings.Contains(dump, strings.Trim(strings.TrimSpace(q.String()), `"`))
	}
	dropped := 0
	for _, l := range lookalikes {
		if !inDump(l.text) {
			dropped++
			t.Errorf("lookalikes.txt:%d as a commit subject: left out of the session note: %q", l.n, l.text)
		}
	}
	droppedNames := 0
	for _, l := range lnamed {
		if !inDump(fileName(l, false)) {
			droppedNames++
			t.Errorf("lookalikes.txt:%d as a file name: left out of the session note: %q", l.n, fileName(l, false))
		}
	}
	summary = append(summary,
		fmt.Sprintf("%-34s look-alikes refused %d of %d", "session note, commit subjects", dropped, len(lookalikes)),
		fmt.Sprintf("%-34s look-alikes refused %d of %d", "session note, file names", droppedNames, len(lnamed)))
	return summary
}
