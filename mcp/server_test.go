//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol but still sent by the clients git-mem serves; the server follows them until clients stop (the SDK keeps them for at least twelve months).

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/bleveindex"
)

// TestMain isolates the tests from the user's personal store and git
// identity, and builds the git-mem binary for the process tests.
func TestMain(m *testing.M) {
	// the server runs inside git-mem, with the bleve engine
	index.UseEngine(bleveindex.Engine{})
	tmp, err := os.MkdirTemp("", "git-mem-mcp-test-")
	if err != nil {
		panic(err)
	}
	// build first, with the real HOME (the Go caches live there)
	if err := buildBinary(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	for k, v := range map[string]string{
		"HOME": filepath.Join(tmp, "home"), "XDG_DATA_HOME": filepath.Join(tmp, "xdg"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(tmp, "gitconfig"),
		"GIT_AUTHOR_NAME": "Test Person", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test Person", "GIT_COMMITTER_EMAIL": "test@example.com",
		"GIT_MEM_AGENT": "", "GIT_MEM_SESSION": "",
	} {
		os.Setenv(k, v)
	}
	os.MkdirAll(filepath.Join(tmp, "home"), 0o755)
	code := func() int {
		defer os.RemoveAll(tmp)
		return m.Run()
	}()
	os.Exit(code)
}

// newRepo returns a fresh git repository with one commit on main.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// client is a connected in-memory MCP client.
type client struct {
	t   testing.TB
	cs  *sdkmcp.ClientSession
	c   *sdkmcp.Client
	srv *Server
}

// connect starts a Server with o and connects a client named name with the
// given roots (directories) over the SDK's in-memory transports.
func connect(t testing.TB, o Options, name string, roots ...string) *client {
	t.Helper()
	return connectWith(t, o, "", name, roots...)
}

// connectWith is connect with a protocol version for the client to ask for
// (empty: the SDK's latest).
func connectWith(t testing.TB, o Options, version string, name string, roots ...string) *client {
	t.Helper()
	return connectClient(t, o, version, name, nil, roots...)
}

// connectClient is connectWith with a setup of the client (middleware)
// before it connects.
func connectClient(t testing.TB, o Options, version string, name string, setup func(*sdkmcp.Client), roots ...string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv := New(o)
	st, ct := sdkmcp.NewInMemoryTransports()
	ss, err := srv.sdk.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: name, Version: "1.0"}, nil)
	for _, r := range roots {
		c.AddRoots(&sdkmcp.Root{URI: fileURI(r)})
	}
	if setup != nil {
		setup(c)
	}
	cs, err := c.Connect(ctx, ct, &sdkmcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs, c: c, srv: srv}
}

func fileURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// call calls a tool and returns its result; protocol errors fail the test.
func (c *client) call(name string, args any) *sdkmcp.CallToolResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(c.t, err, "%s: protocol error", name)
	return res
}

// text is the concatenated text content of a result.
func resultText(res *sdkmcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdkmcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structured content into v.
func structured(t testing.TB, res *sdkmcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

// seed writes memories straight into the project store, with given ids.
func seed(t testing.TB, dir string, ms ...gitstore.Memory) {
	t.Helper()
	r, err := gitstore.Open(dir)
	require.NoError(t, err)
	st := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject)
	_, err = st.Update(context.Background(), gitstore.Writer{Agent: "seed"}, func(tx *gitstore.Tx) error {
		for _, m := range ms {
			m.Schema = gitstore.SchemaVersion
			if m.Source == "" {
				m.Source = gitstore.SourceVerified
			}
			if m.Trust == 0 {
				m.Trust = gitstore.StartingTrust(m.Source, false)
			}
			if m.Type == "" {
				m.Type = gitstore.TypeFact
			}
			m.Agent = "seed"
			m.Created, m.Updated, m.ValidFrom = tx.Now(), tx.Now(), tx.Now()
			tx.Put(&m)
			tx.Describe(gitstore.OpAdd, m.Text, m.ID)
		}
		return nil
	})
	require.NoError(t, err)
}

func TestToolsListed(t *testing.T) {
	c := connect(t, Options{Dir: newRepo(t)}, "test-client")
	res, err := c.cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	readOnly := map[string]bool{ToolBoot: true, ToolRecall: true, ToolList: true, ToolShow: true, ToolHistory: true, ToolStats: true}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
		require.NotEmpty(t, tool.Description, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		require.Equal(t, readOnly[tool.Name], tool.Annotations.ReadOnlyHint, "%s readOnlyHint", tool.Name)
		require.NotNil(t, tool.OutputSchema, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &schema))
		for p := range schema.Properties {
			// no tool can be pointed at another repository or store, but
			// memory_add at a linked store the user let agents write to
			// (mcp/links_test.go holds what it refuses)
			if tool.Name == ToolAdd && p == "store" {
				continue
			}
			require.NotContains(t, []string{"repo", "repository", "scope", "store", "dir", "directory", "cwd", "root", "path", "git_dir"}, p, "%s takes %s", tool.Name, p)
		}
	}
	for _, n := range []string{ToolBoot, ToolAdd, ToolRecall, ToolHandoff, ToolList, ToolShow, ToolHistory, ToolRevise, ToolConfirm, ToolDispute, ToolForget, ToolStats} {
		require.True(t, names[n], "missing tool %s", n)
	}
	require.Len(t, res.Tools, 12)
	init := c.cs.InitializeResult()
	require.Contains(t, init.Instructions, "memory_boot")
	require.Contains(t, init.Instructions, "evidence, not instructions")
	require.Contains(t, init.Instructions, "memory_handoff")
	require.Contains(t, init.Instructions, "One fact per memory")
}

// TestTools runs every tool, in an order where later cases use what earlier
// ones wrote. $A, $B and $NEW in arguments are replaced by ids.
func TestTools(t *testing.T) {
	dir := newRepo(t)
	const idA, idB = "aaaa1111aaaa1111", "bbbb2222bbbb2222"
	seed(t, dir,
		gitstore.Memory{ID: idA, Type: gitstore.TypeDecision, Text: "Stripe refunds are issued by the webhook handler in server/billing/webhook.go, never from the admin UI", Paths: []string{"server/billing/webhook.go"}},
		gitstore.Memory{ID: idB, Type: gitstore.TypePreference, Text: "The user prefers table-driven tests with testify require"},
		gitstore.Memory{ID: "cccc0000cccc0001", Text: "Twin one: the staging database is reset every night at 02:00 UTC"},
		gitstore.Memory{ID: "cccc0000cccc0002", Text: "Twin two: the CI cache key includes go.sum"},
	)
	c := connect(t, Options{Dir: dir}, "Test Client")
	ids := map[string]string{"$A": idA[:6], "$B": idB[:6]}
	subst := func(args map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range args {
			if s, ok := v.(string); ok {
				for from, to := range ids {
					s = strings.ReplaceAll(s, from, to)
				}
				v = s
			}
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr bool
		want    []string // substrings of the text content
		notWant []string
		check   func(t *testing.T, res *sdkmcp.CallToolResult)
	}{
		{name: "stats", tool: ToolStats, args: map[string]any{}, want: []string{"Serving the memory of the repository", "as test-client", "project (refs/memory/main): 4 current"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out StatsOutput
				structured(t, res, &out)
				require.True(t, out.InRepo)
				require.Equal(t, "test-client", out.Agent)
				require.Equal(t, "working directory", out.ScopeFrom)
			}},
		{name: "boot with task", tool: ToolBoot, args: map[string]any{"task": "refund a Stripe payment"}, want: []string{"not instructions", "Stripe refunds are issued", "table-driven tests"}},
		{name: "boot without task", tool: ToolBoot, args: map[string]any{}, want: []string{"Stripe refunds"}},
		{name: "boot tiny budget", tool: ToolBoot, args: map[string]any{"task": "stripe refunds", "budget_tokens": 60}, want: []string{"call memory_recall"}},
		{name: "add", tool: ToolAdd, args: map[string]any{"text": "requireAdmin throws ERR_NO_SESSION before login completes", "type": "gotcha", "paths": []string{"server/auth.ts"}, "tags": []string{"Auth"}},
			want: []string{"Saved", "gotcha", "inferred", "as test-client"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out AddOutput
				structured(t, res, &out)
				require.Equal(t, "test-client", out.Memory.Agent)
				require.Equal(t, []string{"server/auth.ts"}, out.Memory.Paths)
				require.Equal(t, []string{"auth"}, out.Memory.Tags)
				ids["$NEW"] = out.Memory.ID
				log := gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main")
				require.Contains(t, log, "Agent: test-client")
				require.Contains(t, log, "Memory-Op: add")
			}},
		{name: "add again reinforces", tool: ToolAdd, args: map[string]any{"text": "requireAdmin throws ERR_NO_SESSION before login completes", "type": "gotcha"},
			want: []string{"Already known", "reinforced"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out AddOutput
				structured(t, res, &out)
				require.True(t, out.Reinforced)
				require.Equal(t, ids["$NEW"], out.Memory.ID)
			}},
		{name: "add port", tool: ToolAdd, args: map[string]any{"text": "The dev server listens on port 8080 by default", "type": "convention"}, want: []string{"Saved"}},
		{name: "add other port", tool: ToolAdd, args: map[string]any{"text": "The dev server listens on port 8081 by default", "type": "convention"}, want: []string{"Saved", "resembles", "port 8080", "memory_forget"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out AddOutput
				structured(t, res, &out)
				require.False(t, out.Reinforced)
				require.Len(t, out.PossibleDuplicateOf, len(out.Memory.ID), "the alike memory's full id, as git mem add --json says it")
				require.NotEqual(t, out.Memory.ID, out.PossibleDuplicateOf)
			}},
		{name: "add verified source", tool: ToolAdd, args: map[string]any{"text": "go test ./... needs CGO_ENABLED=0 on the CI image", "type": "command", "source": "verified"}, want: []string{"verified", "trust 0.75"}},
		{name: "add with keys", tool: ToolAdd, args: map[string]any{"text": "Screenshots for the store listing are rendered by fastlane snapshot", "keys": []string{"app store images", "how are marketing pictures made?"}},
			want: []string{"Saved"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out AddOutput
				structured(t, res, &out)
				require.Equal(t, []string{"app store images", "how are marketing pictures made?"}, out.Memory.Keys)
				ids["$KEYS"] = out.Memory.ID
			}},
		{name: "recall through keys", tool: ToolRecall, args: map[string]any{"query": "how are the marketing pictures made"}, want: []string{"fastlane snapshot"}},
		{name: "revise keys only", tool: ToolRevise, args: map[string]any{"id": "$KEYS", "keys": []string{"listing artwork"}}, want: []string{"Revised"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out MemoryOutput
				structured(t, res, &out)
				require.Equal(t, []string{"listing artwork"}, out.Memory.Keys)
				require.Contains(t, out.Memory.Text, "fastlane snapshot")
			}},
		{name: "add bad key", tool: ToolAdd, args: map[string]any{"text": "a memory with a bad key", "keys": []string{"bell\a"}}, wantErr: true, want: []string{"control character"}},
		{name: "add empty", tool: ToolAdd, args: map[string]any{"text": "   "}, wantErr: true, want: []string{"text is empty"}},
		{name: "add missing text", tool: ToolAdd, args: map[string]any{"type": "fact"}, wantErr: true, want: []string{"text"}},
		{name: "add too long", tool: ToolAdd, args: map[string]any{"text": strings.Repeat("word ", 2000)}, wantErr: true, want: []string{"too long", "split it"}},
		{name: "add secret", tool: ToolAdd, args: map[string]any{"text": "deploy token is ghp_" + "R8kZt2VqW9xLmN4pB7sD1fH6jK3cY5eA0gTu"}, wantErr: true, want: []string{"refused", "secret", "GitHub token at byte 16"}, notWant: []string{"R8kZt2"}},
		{name: "add bad type", tool: ToolAdd, args: map[string]any{"text": "x is y", "type": "rumour"}, wantErr: true, want: []string{"unknown type", "fact"}},
		{name: "add bad source", tool: ToolAdd, args: map[string]any{"text": "x is y", "source": "hearsay"}, wantErr: true, want: []string{"unknown source"}},
		{name: "add handoff type", tool: ToolAdd, args: map[string]any{"text": "done x", "type": "handoff"}, wantErr: true, want: []string{"memory_handoff"}},
		{name: "add supersedes unknown", tool: ToolAdd, args: map[string]any{"text": "x is z", "supersedes": "ffffff"}, wantErr: true, want: []string{"no memory has that id"}},
		{name: "recall", tool: ToolRecall, args: map[string]any{"query": "how are Stripe refunds issued?"}, want: []string{"evidence, not instructions", "Stripe refunds are issued", "by "},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out RecallOutput
				structured(t, res, &out)
				require.NotEmpty(t, out.Memories)
				require.Equal(t, idA, out.Memories[0].ID)
				require.Positive(t, out.Memories[0].Score)
				require.Positive(t, out.Memories[0].Relevance, "the shape of git mem recall --json")
				for _, m := range out.Memories {
					require.Equal(t, index.ConfidenceLabel(m.Confidence), m.Label, "each memory carries its confidence's label")
				}
			}},
		{name: "recall camelCase", tool: ToolRecall, args: map[string]any{"query": "requireAdmin ERR_NO_SESSION", "limit": 3}, want: []string{"requireAdmin throws"}},
		{name: "recall off topic", tool: ToolRecall, args: map[string]any{"query": "kubernetes helm chart ingress"}, want: []string{"Nothing relevant"}},
		{name: "recall stopwords", tool: ToolRecall, args: map[string]any{"query": "the of and"}, want: []string{"no words to search for"}},
		{name: "recall empty", tool: ToolRecall, args: map[string]any{"query": ""}, wantErr: true, want: []string{"query is empty"}},
		{name: "recall negative", tool: ToolRecall, args: map[string]any{"query": "stripe", "limit": -1}, wantErr: true, want: []string{"positive"}},
		{name: "recall phrasings", tool: ToolRecall, args: map[string]any{"query": "money back to a customer", "queries": []string{"how are refunds issued", "stripe refund api"}}, want: []string{"Stripe refunds are issued"}},
		{name: "recall too many phrasings", tool: ToolRecall, args: map[string]any{"query": "refunds", "queries": []string{"a", "b", "c", "d", "e"}}, wantErr: true, want: []string{"at most 4"}},
		{name: "list", tool: ToolList, args: map[string]any{}, want: []string{"requireAdmin", "Stripe refunds", "Twin one"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out ListOutput
				structured(t, res, &out)
				require.Equal(t, 9, out.Total)
				require.Len(t, out.Memories, 9)
			}},
		{name: "list type", tool: ToolList, args: map[string]any{"type": "preference"}, want: []string{"table-driven"}, notWant: []string{"Stripe"}},
		{name: "list empty type", tool: ToolList, args: map[string]any{"type": "session"}, want: []string{"No current session memories"}},
		{name: "list bad type", tool: ToolList, args: map[string]any{"type": "nonsense"}, wantErr: true, want: []string{"unknown type"}},
		{name: "show", tool: ToolShow, args: map[string]any{"id": "$A"}, want: []string{"aaaa1111aaaa1111", "decision", "server/billing/webhook.go", "not an instruction"}},
		{name: "show full id", tool: ToolShow, args: map[string]any{"id": idB}, want: []string{"table-driven"}},
		{name: "show new", tool: ToolShow, args: map[string]any{"id": "$NEW"}, want: []string{"requireAdmin", "via test-client"}},
		{name: "show unknown", tool: ToolShow, args: map[string]any{"id": "ffff0000"}, wantErr: true, want: []string{"no memory has that id", "memory_recall"}},
		{name: "show ambiguous", tool: ToolShow, args: map[string]any{"id": "cccc"}, wantErr: true, want: []string{"ambiguous", "matches 2 memories", "cccc0000cccc0001", "cccc0000cccc0002", "more characters"}},
		{name: "show too short", tool: ToolShow, args: map[string]any{"id": "cc"}, wantErr: true, want: []string{"invalid input", "memory_list"}, notWant: []string{"git mem"}},
		{name: "show empty", tool: ToolShow, args: map[string]any{"id": ""}, wantErr: true, want: []string{"give the id"}},
		{name: "revise", tool: ToolRevise, args: map[string]any{"id": "$A", "text": "Stripe refunds are issued only by the webhook handler (server/billing/webhook.go)"}, want: []string{"Revised"}},
		{name: "revise same", tool: ToolRevise, args: map[string]any{"id": "$A", "text": "Stripe refunds are issued only by the webhook handler (server/billing/webhook.go)"}, wantErr: true, want: []string{"same as the current"}},
		{name: "revise empty", tool: ToolRevise, args: map[string]any{"id": "$A", "text": ""}, wantErr: true, want: []string{"text is empty"}},
		{name: "revise secret", tool: ToolRevise, args: map[string]any{"id": "$A", "text": "use key AKIAQWERTYUIOPASDFGH to refund"}, wantErr: true, want: []string{"refused"}},
		{name: "history", tool: ToolHistory, args: map[string]any{"id": "$A"}, want: []string{"revise by test-client", "by seed", "only by the webhook", "never from the admin UI"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out HistoryOutput
				structured(t, res, &out)
				require.Len(t, out.Versions, 2)
				require.Equal(t, "revise", out.Versions[0].Op)
				require.Equal(t, "test-client", out.Versions[0].Agent)
				require.NotNil(t, out.Versions[0].Text)
				require.Contains(t, *out.Versions[0].Text, "only by the webhook")
			}},
		{name: "confirm", tool: ToolConfirm, args: map[string]any{"id": "$A"}, want: []string{"Confirmed", "0.75 -> 0.8"}},
		{name: "dispute", tool: ToolDispute, args: map[string]any{"id": "$B", "reason": "the repo uses plain testing in pkg/legacy"}, want: []string{"Disputed"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				var out MemoryOutput
				structured(t, res, &out)
				require.Less(t, out.Memory.Trust, 0.9)
			}},
		{name: "show events", tool: ToolShow, args: map[string]any{"id": "$B"}, want: []string{"dispute by test-client: the repo uses plain testing"}},
		{name: "dispute unknown", tool: ToolDispute, args: map[string]any{"id": "abcdef"}, wantErr: true, want: []string{"no memory has that id"}},
		{name: "supersede", tool: ToolAdd, args: map[string]any{"text": "Twin one: the staging database is reset every night at 03:00 UTC", "supersedes": "cccc0000cccc0001"}, want: []string{"supersedes cccc00"}},
		{name: "supersede again", tool: ToolAdd, args: map[string]any{"text": "Twin one: reset at 04:00 UTC", "supersedes": "cccc0000cccc0001"}, wantErr: true, want: []string{"already superseded"}},
		{name: "forget", tool: ToolForget, args: map[string]any{"id": "cccc0000cccc0002"}, want: []string{"Forgot"}},
		{name: "forget again", tool: ToolForget, args: map[string]any{"id": "cccc0000cccc0002"}, wantErr: true, want: []string{"no memory has that id"}},
		{name: "handoff", tool: ToolHandoff, args: map[string]any{"done": "refund webhook handler", "next": "write the refund e2e test", "warnings": []string{"staging Stripe keys expire Friday"}}, want: []string{"Handoff", "branch main", "memory_boot"},
			check: func(t *testing.T, res *sdkmcp.CallToolResult) {
				log := gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main")
				require.Contains(t, log, "Agent: test-client")
				require.Contains(t, log, "handoff")
			}},
		{name: "handoff replaces", tool: ToolHandoff, args: map[string]any{"next": "ship it"}, want: []string{"replaces the previous handoff"}},
		{name: "boot shows handoff", tool: ToolBoot, args: map[string]any{"task": "refunds"}, want: []string{"Handoff left for this branch (main)", "Next: ship it", "via test-client"}, notWant: []string{"write the refund e2e test"}},
		{name: "handoff empty", tool: ToolHandoff, args: map[string]any{"done": " ", "warnings": []string{""}}, wantErr: true, want: []string{"handoff is empty"}},
		{name: "stats after", tool: ToolStats, args: map[string]any{}, want: []string{"superseded or expired", "handoff 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.call(tc.tool, subst(tc.args))
			txt := resultText(res)
			require.Equal(t, tc.wantErr, res.IsError, "isError; text: %s", txt)
			for _, w := range tc.want {
				require.Contains(t, txt, w)
			}
			for _, w := range tc.notWant {
				require.NotContains(t, txt, w)
			}
			if !tc.wantErr {
				require.NotNil(t, res.StructuredContent, "structured content")
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
	// refused writes wrote nothing
	log := gitRun(t, dir, "log", "--format=%s", "refs/memory/main")
	require.NotContains(t, log, "ghp_")
	require.NotContains(t, log, "AKIA")
}

// TestScopeFollowsRoots, for clients on the session protocol (roots/list,
// list_changed) and on 2026-07-28 (roots as input responses of each call).
func TestScopeFollowsRoots(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) { testScopeFollowsRoots(t, version) })
	}
}

func testScopeFollowsRoots(t *testing.T, version string) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	a, b, outside := newRepo(t), newRepo(t), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(a, "sub"), 0o755))
	c := connectWith(t, Options{Dir: outside}, version, "claude-code", filepath.Join(a, "sub"))
	res := c.call(ToolAdd, map[string]any{"text": "Repository A uses pnpm workspaces"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, a, "log", "--format=%B", "refs/memory/main"), "Agent: claude-code")

	var st StatsOutput
	structured(t, c.call(ToolStats, map[string]any{}), &st)
	require.Equal(t, "client root", st.ScopeFrom)
	require.True(t, st.InRepo)

	// the client switches its workspace: the next call serves repository B
	c.c.RemoveRoots(fileURI(filepath.Join(a, "sub")))
	c.c.AddRoots(&sdkmcp.Root{URI: fileURI(outside)}, &sdkmcp.Root{URI: fileURI(b)})
	require.Eventually(t, func() bool {
		structured(t, c.call(ToolStats, map[string]any{}), &st)
		return st.Dir == b
	}, 10*time.Second, 20*time.Millisecond, "scope did not follow the roots")
	res = c.call(ToolAdd, map[string]any{"text": "Repository B deploys with Fly.io"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, b, "log", "--format=%s", "refs/memory/main"), "Fly.io")
	require.NotContains(t, gitRun(t, a, "log", "--format=%s", "refs/memory/main"), "Fly.io")
	// what B's memory holds is all recall sees
	res = c.call(ToolRecall, map[string]any{"query": "pnpm workspaces"})
	require.Contains(t, resultText(res), "Nothing relevant")
}

func TestScopeWithoutRepository(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	outside := t.TempDir()
	c := connect(t, Options{Dir: outside, Agent: "cursor"}, "whatever-client")
	res := c.call(ToolStats, map[string]any{})
	require.False(t, res.IsError)
	require.Contains(t, resultText(res), "No git repository in scope")
	require.Contains(t, resultText(res), "personal store only")
	var st StatsOutput
	structured(t, res, &st)
	require.False(t, st.InRepo)
	require.Equal(t, "cursor", st.Agent)

	res = c.call(ToolAdd, map[string]any{"text": "I prefer British spelling in docs", "type": "preference", "source": "user"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "personal store")
	var add AddOutput
	structured(t, res, &add)
	require.Equal(t, "personal", add.Memory.Scope)
	require.Equal(t, "cursor", add.Memory.Agent)

	res = c.call(ToolRecall, map[string]any{"query": "British spelling docs"})
	require.Contains(t, resultText(res), "British spelling")
	res = c.call(ToolHandoff, map[string]any{"done": "x"})
	require.True(t, res.IsError)
	require.Contains(t, resultText(res), "no repository is in scope")
	res = c.call(ToolBoot, map[string]any{})
	require.Contains(t, resultText(res), "personal store only")
}

func TestAgentOverride(t *testing.T) {
	dir := newRepo(t)
	c := connect(t, Options{Dir: dir, Agent: "gemini"}, "claude-code")
	res := c.call(ToolAdd, map[string]any{"text": "The docs site builds with mkdocs material"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main"), "Agent: gemini")

	c = connect(t, Options{Dir: dir}, "")
	res = c.call(ToolConfirm, map[string]any{"id": gitRun(t, dir, "log", "-1", "--format=%(trailers:key=Memory-Id,valueonly)", "refs/memory/main")[:8]})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main"), "Agent: mcp")
}

func TestSessionFromMeta(t *testing.T) {
	dir := newRepo(t)
	c := connect(t, Options{Dir: dir}, "codex-mcp-client")
	ctx := context.Background()
	res, err := c.cs.CallTool(ctx, &sdkmcp.CallToolParams{Meta: sdkmcp.Meta{"sessionId": "01a22b8d-8a8d-7a00"}, Name: ToolAdd, Arguments: map[string]any{"text": "Codex sends its session id in _meta"}})
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main"), "Session: 01a22b8d-8a8d-7a00")
	res, err = c.cs.CallTool(ctx, &sdkmcp.CallToolParams{Meta: sdkmcp.Meta{"sessionId": "bad id\nAgent: x"}, Name: ToolAdd, Arguments: map[string]any{"text": "A forged session id is dropped"}})
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
	log := gitRun(t, dir, "log", "-1", "--format=%B", "refs/memory/main")
	require.NotContains(t, log, "Session:")
	require.NotContains(t, log, "Agent: x")
}

// TestFreshness: what another writer commits is visible on the next call,
// and the server leaves the index closed between calls.
func TestFreshness(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := newRepo(t)
	c := connect(t, Options{Dir: dir}, "codex-mcp-client")
	res := c.call(ToolRecall, map[string]any{"query": "flaky payments integration test"})
	require.Contains(t, resultText(res), "Nothing relevant")

	r, err := gitstore.Open(dir)
	require.NoError(t, err)
	st := gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject)
	_, err = st.Add(context.Background(), gitstore.Writer{Agent: "cli"}, gitstore.NewMemory{Text: "The payments integration test is flaky under -race; rerun it once before debugging", Type: gitstore.TypeGotcha})
	require.NoError(t, err)

	res = c.call(ToolRecall, map[string]any{"query": "flaky payments integration test"})
	require.Contains(t, resultText(res), "rerun it once")

	// the index is not held open: a read-write open (a rebuild) succeeds at once
	set, err := gitstore.OpenSet(dir)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, err := index.Rebuild(ctx, set, nil)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = os.Stat(index.Dir(set))
	require.NoError(t, err, "recall built the index")
}

// TestPanicIsToolError: a bug in one call becomes a tool error; the server
// keeps serving.
func TestPanicIsToolError(t *testing.T) {
	dir := newRepo(t)
	s := New(Options{Dir: dir})
	sdkmcp.AddTool(s.sdk, &sdkmcp.Tool{Name: "boom"}, handle(s, func(ctx context.Context, c *call, in StatsInput) (string, StatsOutput, error) {
		panic("kaboom")
	}))
	ctx := context.Background()
	st, ct := sdkmcp.NewInMemoryTransports()
	ss, err := s.sdk.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "x", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, resultText(res), "internal error in git-mem (kaboom)")
	res, err = cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: ToolStats, Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
}

// TestScopeIgnoresInheritedGitDir: a GIT_DIR inherited from whoever started
// the server does not send a client's writes (or reads) to another
// repository than its root's.
func TestScopeIgnoresInheritedGitDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	a, b := newRepo(t), newRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(a, ".git"))
	t.Setenv("GIT_WORK_TREE", a)
	c := connect(t, Options{Dir: t.TempDir()}, "claude-code", b)
	res := c.call(ToolAdd, map[string]any{"text": "Repository B deploys with Fly.io"})
	require.False(t, res.IsError, resultText(res))
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	require.Contains(t, gitRun(t, b, "log", "--format=%s", "refs/memory/main"), "Fly.io")
	out, err := exec.Command("git", "-C", a, "log", "--format=%s", "refs/memory/main").CombinedOutput()
	require.Error(t, err, "repository A got no memory ref: %s", out)
}

// TestSlowRootsNeverSendWritesElsewhere: a client that answers roots/list
// after the server's timeout gets its write refused, not sent to the
// server's working-directory repository; once it answers in time, the
// write lands in its root. The slow answer is not remembered.
func TestSlowRootsNeverSendWritesElsewhere(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, serverDir := newRepo(t), newRepo(t)
	var slow atomic.Bool
	slow.Store(true)
	delay := func(next sdkmcp.MethodHandler) sdkmcp.MethodHandler {
		return func(ctx context.Context, method string, req sdkmcp.Request) (sdkmcp.Result, error) {
			if method == "roots/list" && slow.Load() {
				time.Sleep(400 * time.Millisecond)
			}
			return next(ctx, method, req)
		}
	}
	c := connectClient(t, Options{Dir: serverDir, RootsTimeout: 100 * time.Millisecond}, "2025-06-18", "slow-client",
		func(c *sdkmcp.Client) { c.AddReceivingMiddleware(delay) }, root)
	res := c.call(ToolAdd, map[string]any{"text": "Repository R deploys with Fly.io"})
	require.True(t, res.IsError, resultText(res))
	require.Contains(t, resultText(res), "nothing was written")
	_, err := exec.Command("git", "-C", serverDir, "rev-parse", "--verify", "-q", "refs/memory/main").Output()
	require.Error(t, err, "the server's own repository got nothing")

	slow.Store(false)
	res = c.call(ToolAdd, map[string]any{"text": "Repository R deploys with Fly.io"})
	require.False(t, res.IsError, resultText(res))
	require.Contains(t, gitRun(t, root, "log", "--format=%s", "refs/memory/main"), "Fly.io")
}

// TestRefusedClientName: a client whose name the store would refuse as a
// writer (it holds a credential) writes as "mcp": its memories are kept,
// and the name reaches no commit.
func TestRefusedClientName(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	c := connect(t, Options{Dir: t.TempDir()}, "agent ghp_"+strings.Repeat("a1B2", 9))
	res := c.call(ToolAdd, map[string]any{"text": "I prefer British spelling in docs", "type": "preference", "source": "user"})
	require.False(t, res.IsError, resultText(res))
	var add AddOutput
	structured(t, res, &add)
	require.Equal(t, "mcp", add.Memory.Agent)
}

// TestChangeToolsTakeAVersion: a change given the version an agent read is
// made only while the memory is still at it; once another writer changed
// it, the tool says so, writes nothing, and the version memory_show gives
// now is taken. A version that is none is refused as such.
func TestChangeToolsTakeAVersion(t *testing.T) {
	dir := newRepo(t)
	const id = "dddd4444dddd4444"
	seed(t, dir, gitstore.Memory{ID: id, Text: "The billing worker retries a failed charge three times"})
	c := connect(t, Options{Dir: dir}, "Test Client")
	versionOf := func() string {
		t.Helper()
		res := c.call(ToolShow, map[string]any{"id": id})
		require.False(t, res.IsError, resultText(res))
		var out MemoryOutput
		structured(t, res, &out)
		require.Len(t, out.Memory.Version, 16)
		require.Contains(t, resultText(res), "version "+out.Memory.Version, "the text says it too")
		return out.Memory.Version
	}
	changes := []struct {
		tool string
		args map[string]any
	}{
		{ToolConfirm, map[string]any{}},
		{ToolDispute, map[string]any{"reason": "the worker config says five"}},
		{ToolRevise, map[string]any{"text": "The billing worker retries a failed charge five times"}},
		{ToolForget, map[string]any{}},
	}
	other := func() { // another agent's change, between the read and the write
		t.Helper()
		r, err := gitstore.Open(dir)
		require.NoError(t, err)
		_, err = gitstore.NewStore(r, gitstore.RefMain, gitstore.ScopeProject).Confirm(context.Background(), gitstore.Writer{Agent: "other"}, id)
		require.NoError(t, err)
	}
	for _, ch := range changes {
		t.Run(ch.tool, func(t *testing.T) {
			args := func(version string) map[string]any {
				a := map[string]any{"id": id[:6], "version": version}
				for k, v := range ch.args {
					a[k] = v
				}
				return a
			}
			read := versionOf()
			other()
			tip := gitRun(t, dir, "rev-parse", "refs/memory/main")
			res := c.call(ch.tool, args(read))
			require.True(t, res.IsError, resultText(res))
			require.Contains(t, resultText(res), "changed since it was read")
			require.Contains(t, resultText(res), "memory_show")
			require.Equal(t, tip, gitRun(t, dir, "rev-parse", "refs/memory/main"), "nothing was written")

			res = c.call(ch.tool, args("not-a-version"))
			require.True(t, res.IsError, resultText(res))
			require.Contains(t, resultText(res), "is not a memory's version")
			require.Equal(t, tip, gitRun(t, dir, "rev-parse", "refs/memory/main"), "nothing was written")

			res = c.call(ch.tool, args(versionOf()))
			require.False(t, res.IsError, resultText(res))
			require.NotEqual(t, tip, gitRun(t, dir, "rev-parse", "refs/memory/main"))
		})
	}
}
