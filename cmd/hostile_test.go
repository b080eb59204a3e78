package cmd_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// badID is the file name id of the documents the tests plant.
const badID = "3f2a9c41d0e8b7a2"

// plantDoc commits data as memories/<id[:2]>/<id>.json on refs/memory/main
// of dir with git plumbing only: what a hand edit, an older version or a
// teammate's clone can leave. msg is the commit message.
func (sb *sandbox) plantDoc(dir, id, data, msg string) {
	sb.t.Helper()
	index := filepath.Join(sb.t.TempDir(), "index")
	run := func(stdin string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", dir}, args...)...)
		c.Env = append(sb.env(), "GIT_INDEX_FILE="+index)
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		require.NoError(sb.t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	blob := run(data, "hash-object", "-w", "--stdin")
	parent := run("", "rev-parse", "--verify", "-q", "refs/memory/main")
	run("", "read-tree", parent)
	run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+",memories/"+id[:2]+"/"+id+".json")
	tree := run("", "write-tree")
	commit := run(msg, "commit-tree", tree, "-p", parent)
	run("", "update-ref", "refs/memory/main", commit, parent)
}

// hostileDoc is a document with the given fields changed (nil deletes).
func hostileDoc(t *testing.T, id string, set map[string]any) string {
	t.Helper()
	doc := map[string]any{
		"schema": 1, "id": id, "type": "fact", "text": "Planted memory about webhooks", "source": "user", "trust": 0.9,
		"agent": "claude-code", "author": "Eve <eve@example.com>", "anchor": map[string]any{"commit": strings.Repeat("ab", 20), "branch": "main"},
		"created": "2026-11-29T08:00:00Z", "updated": "2026-11-29T08:00:00Z", "valid_from": "2026-11-29T08:00:00Z",
	}
	return string(gitstoretest.Patched(t, doc, set))
}

// TestCLIInvalidDocumentInStore: a store holding an invalid document keeps
// working. Every read command skips it with a warning naming the file, show
// refuses it with the fix and never panics, doctor lists it, forget removes it.
func TestCLIInvalidDocumentInStore(t *testing.T) {
	cases := []struct {
		name, doc, why string
	}{
		{"invalid JSON", `{"schema":1,"id":"` + badID + `","text":`, "not a JSON memory document"},
		{"schema 2", hostileDoc(t, badID, map[string]any{"schema": 2}), "schema 2"},
		{"short anchor commit", hostileDoc(t, badID, map[string]any{"anchor": map[string]any{"commit": "abc", "branch": "main"}}), "anchor.commit"},
		{"short superseded_by", hostileDoc(t, badID, map[string]any{"superseded_by": "ab", "valid_to": "2026-11-29T09:00:00Z"}), "superseded_by"},
		{"id differs from its file name", hostileDoc(t, badID, map[string]any{"id": "0123456789abcdef"}), "differs from its file name"},
		{"oversized", hostileDoc(t, badID, map[string]any{"padding": strings.Repeat("x", 2<<20)}), "byte maximum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			sb.git("commit", "-q", "--allow-empty", "-m", "init")
			mustRun(t, sb, "add", "--type", "preference", "--", "Stripe webhooks are verified with the signing secret")
			require.Contains(t, mustRun(t, sb, "recall", "--", "stripe webhook signing secret"), "Stripe webhooks", "the index exists before the plant")
			sb.plantDoc(sb.repo, badID, c.doc, "mem: add 3f2a9c planted\n\nMemory-Id: "+badID+"\nMemory-Op: add\n")
			path := "memories/3f/" + badID + ".json"

			for _, args := range [][]string{
				{"list"}, {"list", "--all", "--json"}, {"recall", "--", "stripe webhook signing secret"}, {"boot"}, {"stats"},
			} {
				out, errOut, code := sb.run(args...)
				require.Equal(t, 0, code, "git mem %v: %s", args, errOut)
				if args[0] != "stats" {
					require.Contains(t, out, "Stripe webhooks are verified", "git mem %v", args)
				}
				if args[0] == "list" {
					require.Contains(t, errOut, "warning: memory document "+path+" is invalid (")
					require.Contains(t, errOut, c.why)
					require.Contains(t, errOut, "git mem forget "+badID)
				}
			}

			_, errOut, code := sb.run("show", "3f2a9c")
			require.Equal(t, 1, code)
			require.Contains(t, errOut, path+" is invalid")
			require.Contains(t, errOut, "git mem forget "+badID)

			_, errOut, code = sb.run("add", "--supersedes", "3f2a9c", "--", "A replacement")
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "is invalid")

			out, errOut, code := sb.run("history", "3f2a9c")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "(invalid document: ")
			require.Contains(t, out, c.why)

			out, _, code = sb.run("doctor", "--offline")
			require.Equal(t, 1, code)
			require.Contains(t, out, "refs/memory/main "+path+": invalid memory document: ")
			require.Contains(t, out, c.why)
			require.Contains(t, out, "fix: git mem forget "+badID)

			start, _ := json.Marshal(map[string]any{"session_id": "h1", "cwd": sb.repo, "hook_event_name": "SessionStart", "source": "startup"})
			out, _, code = sb.runStdin(string(start), nil, "hook", "session-start")
			require.Equal(t, 0, code)
			require.Contains(t, out, "Stripe webhooks are verified", "the hook still injects the valid memories")

			out, errOut, code = sb.run("forget", "3f2a9c")
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "forgot 3f2a9c")
			_, errOut, code = sb.run("list")
			require.Equal(t, 0, code)
			require.NotContains(t, errOut, "warning")
			out, _, code = sb.run("doctor", "--offline")
			require.Equal(t, 0, code, out)
		})
	}
}

// TestCLIPurgeInvalidDocument: forget --purge reaches an invalid document by its file name.
func TestCLIPurgeInvalidDocument(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	mustRun(t, sb, "add", "--", "A good memory")
	sb.plantDoc(sb.repo, badID, hostileDoc(t, badID, map[string]any{"id": "0123456789abcdef", "text": "planted internal hostname list"}), "mem: add 3f2a9c planted\n")
	out, errOut, code := sb.run("forget", "--purge", "3f2a9c")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "purged 3f2a9c")
	require.NotContains(t, sb.git("log", "-p", "refs/memory/main"), "planted internal hostname list")
}

// TestCLIPullReportsInvalidDocuments: a teammate pushes invalid documents
// with plain git; git mem pull names each file and why, merges the rest, and
// the puller's store works.
func TestCLIPullReportsInvalidDocuments(t *testing.T) {
	w := newSyncWorld(t)
	w.isolate()
	ann := w.clone("ann")
	w.memOKIn(ann, "add", "--", "Deploys run from the release branch")
	w.memOKIn(ann, "push")
	w.sandbox.plantDoc(ann, badID, hostileDoc(t, badID, map[string]any{"schema": 2}), "mem: add 3f2a9c planted\n")
	w.sandbox.plantDoc(ann, "4f2a9c41d0e8b7a2", hostileDoc(t, "4f2a9c41d0e8b7a2", map[string]any{"text": strings.Repeat("x", 9000)}), "mem: add 4f2a9c planted\n")
	w.gitIn(ann, "push", "-q", "origin", "refs/memory/main:refs/memory/main")
	w.memOKIn(ann, "add", "--", "The staging database is reset nightly")
	w.memOKIn(ann, "push")

	bob := w.clone("bob")
	out := w.memOKIn(bob, "pull")
	require.Contains(t, out, "2 invalid and not merged")
	require.Contains(t, out, "not merged: memories/3f/"+badID+".json from origin is invalid (memory schema 2 is not supported")
	require.Contains(t, out, "not merged: memories/4f/4f2a9c41d0e8b7a2.json from origin is invalid (text is 9000 bytes, over the 8192-byte maximum")
	list := w.memOKIn(bob, "list")
	require.Contains(t, list, "Deploys run from the release branch")
	require.Contains(t, list, "The staging database is reset nightly")
	require.Equal(t, 2, w.count(bob))
	_, errOut, code := w.memIn(bob, "list")
	require.Equal(t, 0, code)
	require.Empty(t, errOut)
	require.Contains(t, w.memOKIn(bob, "pull"), "already up to date")

	// --json says the same
	carl := w.clone("carl")
	var res struct {
		Merge struct {
			Rejected []struct{ ID, Path, Reason string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(w.memOKIn(carl, "pull", "--json")), &res))
	require.Len(t, res.Merge.Rejected, 2)
	require.Equal(t, "memories/3f/"+badID+".json", res.Merge.Rejected[0].Path)
	w.gitIn(bob, "fsck", "--no-dangling")
}

// TestCLIEscapesTerminalControls: what a document or a commit holds never
// reaches the terminal raw: control characters (ESC, OSC, CR, C1) and
// bidirectional overrides are printed as visible escapes by list, show,
// recall, history, log and boot.
func TestCLIEscapesTerminalControls(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	mustRun(t, sb, "add", "--", "Plain neighbour memory about invoices")
	// A carriage return and a right-to-left override pass the read checks
	// (older versions stored them); ESC, OSC and C1 sit in commit trailers.
	text := "Invoices are rounded per line\rHIDDEN \u202eevil\u202c done"
	sb.plantDoc(sb.repo, badID, hostileDoc(t, badID, map[string]any{"text": text}),
		"mem: add 3f2a9c \x1b]0;pwned\x07invoices \x1b[2J\u009b31m\n\nMemory-Id: "+badID+"\nMemory-Op: add\nAgent: evil\x1b[31magent\n")
	for _, args := range [][]string{
		{"list"}, {"show", "3f2a9c"}, {"recall", "--", "invoices rounded per line"}, {"history", "3f2a9c"}, {"log"}, {"boot", "--", "invoices rounded"},
	} {
		out, errOut, code := sb.run(args...)
		require.Equal(t, 0, code, "git mem %v: %s", args, errOut)
		for _, raw := range []string{"\x1b", "\r", "\u202e", "\u009b", "\x07"} {
			require.NotContains(t, out, raw, "git mem %v printed %q raw:\n%s", args, raw, out)
		}
		switch args[0] {
		case "list", "recall", "boot":
			require.Contains(t, out, `\u202eevil`, "git mem %v", args)
		case "show":
			require.Contains(t, out, `Invoices are rounded per line\x0dHIDDEN \u202eevil\u202c done`)
		case "history":
			require.Contains(t, out, `evil\x1b[31magent`)
		case "log":
			require.Contains(t, out, `\x1b]0;pwned\x07invoices \x1b[2J\u009b31m`)
		}
	}
	// --json keeps the text as it is stored
	out := mustRun(t, sb, "show", "--json", "3f2a9c")
	var m struct{ Text string }
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.Equal(t, text, m.Text)
}

// TestCLIWriteRefusesControlsAndLimits: add refuses control characters in
// paths, CR in text, and too many or too long paths and tags, saying what
// to do; nothing is written.
func TestCLIWriteRefusesControlsAndLimits(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	mustRun(t, sb, "add", "--", "first memory")
	many := func(flag string, n int, f func(i int) string) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, flag, f(i))
		}
		return out
	}
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"ESC in a path", []string{"--path", "src/\x1b]0;pwned\x07.go"}, "contains control characters"},
		{"C1 in a path", []string{"--path", "src/\u009bx.go"}, "contains control characters"},
		{"newline in a path", []string{"--path", "a\nb.go"}, "contains control characters"},
		{"ESC in a tag", []string{"--tag", "x\x1b[31m"}, "tags use letters, digits"},
		{"CR in the text", []string{"--", "line one\r\nline two"}, "carriage return (CR)"},
		{"ESC in the text", []string{"--", "red \x1b[31m text"}, "control character U+001B"},
		{"51 paths", many("--path", 51, func(i int) string { return "src/f" + strings.Repeat("x", i) + ".go" }), "51 paths, over the maximum of 50"},
		{"a 513-byte path", []string{"--path", strings.Repeat("d/", 256) + "f"}, "over the 512-byte maximum"},
		{"21 tags", many("--tag", 21, func(i int) string { return "t" + strings.Repeat("x", i) }), "21 tags, over the maximum of 20"},
		{"a 65-byte tag", []string{"--tag", strings.Repeat("t", 65)}, "longer than 64 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := sb.git("rev-parse", "refs/memory/main")
			args := append([]string{"add"}, c.args...)
			if c.args[0] != "--" {
				args = append(args, "--", "a memory with bad metadata")
			}
			_, errOut, code := sb.run(args...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, c.stderr)
			require.NotContains(t, errOut, "\x1b", "the error escapes what it quotes")
			require.Equal(t, before, sb.git("rev-parse", "refs/memory/main"), "nothing was written")
		})
	}
	// the limits themselves are accepted
	var ok []string
	ok = append(ok, many("--path", 49, func(i int) string { return "src/" + strings.Repeat("y", i) + ".go" })...)
	ok = append(ok, many("--tag", 20, func(i int) string { return "t" + strings.Repeat("y", i) })...)
	ok = append(ok, "--path", strings.Repeat("d/", 255)+"ff")
	mustRun(t, sb, append(append([]string{"add"}, ok...), "--", "a memory at every limit")...)
}

// TestCLIHookSkipsInvalidDocumentWithAWarning: a hook injects the valid
// memories of a store holding an invalid document, and logs which document
// it skipped and why to hooks.log (never to stdout).
func TestCLIHookSkipsInvalidDocumentWithAWarning(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	mustRun(t, sb, "add", "--type", "preference", "--", "Prefer table-driven tests")
	sb.plantDoc(sb.repo, badID, hostileDoc(t, badID, map[string]any{"schema": 2}), "mem: add 3f2a9c planted\n")
	start, _ := json.Marshal(map[string]any{"session_id": "w1", "cwd": sb.repo, "hook_event_name": "SessionStart", "source": "startup"})
	out, _, code := sb.runStdin(string(start), nil, "hook", "session-start")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Prefer table-driven tests")
	require.NotContains(t, out, badID)
	prompt, _ := json.Marshal(map[string]any{"session_id": "w1", "cwd": sb.repo, "hook_event_name": "UserPromptSubmit", "prompt": "how should I write table-driven tests here?"})
	out, _, code = sb.runStdin(string(prompt), nil, "hook", "prompt")
	require.Equal(t, 0, code)
	require.NotContains(t, out, badID)
	log, err := os.ReadFile(filepath.Join(sb.repo, ".git", "mem", "hooks.log"))
	require.NoError(t, err)
	require.Contains(t, string(log), "warning: memory document memories/3f/"+badID+".json is invalid (memory schema 2")
}
