package cmd_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/embedding/embedtest"
)

const rotateText = "Rotate the frobnicator credentials every Tuesday."

// vectorFiles is every vector file's content, concatenated.
func vectorFiles(t *testing.T, repo string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repo, ".git", "mem", "vectors", "*.vec"))
	require.NoError(t, err)
	var all strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		all.Write(data)
	}
	return all.String()
}

// embeddingSandbox is a sandbox whose git config points at a stand-in
// embedding server.
func embeddingSandbox(t *testing.T) (*sandbox, *embedtest.Server) {
	t.Helper()
	sb := newSandbox(t)
	sb.isolate()
	srv := embedtest.Start(t, embedtest.Paraphrases)
	sb.git("config", "mem.embed.url", srv.URL)
	sb.git("config", "mem.embed.model", "stand-in")
	sb.git("config", "mem.embed.minScore", "0.6")
	return sb, srv
}

func TestCLIEmbeddings(t *testing.T) {
	sb, srv := embeddingSandbox(t)

	id := strings.TrimSpace(mustRun(t, sb, "add", "--", rotateText))
	mustRun(t, sb, "add", "--", "Run database migrations with pnpm db:migrate before starting the API server.")
	_, inputs := srv.Counts()
	require.Equal(t, 2, inputs, "each memory embedded when saved")
	hash := embedding.HashOf(rotateText)
	require.Contains(t, vectorFiles(t, sb.repo), string(hash[:]))

	// a paraphrase sharing no word is found, with its similarity
	out, errOut, code := sb.run("recall", "--", "widget keys cycling")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "frobnicator credentials")
	var hits []struct {
		Text       string  `json:"text"`
		Similarity float64 `json:"similarity"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "recall", "--json", "--", "widget keys cycling")), &hits))
	require.Len(t, hits, 1)
	require.InDelta(t, 0.77, hits[0].Similarity, 0.03)
	// boot lists memories for any task; a match carries its confidence label
	require.Regexp(t, `likely match[^\]]*\] Rotate the frobnicator`, mustRun(t, sb, "boot", "--", "widget keys cycling"))
	require.NotRegexp(t, `likely match[^\]]*\] Rotate the frobnicator`, mustRun(t, sb, "boot", "--", "sourdough bread baking"))
	// an off-topic question still finds nothing
	out, errOut, code = sb.run("recall", "--", "how do we bake sourdough bread")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "nothing relevant found")

	// doctor: one finding, the endpoint answers
	out, errOut, code = sb.run("doctor", "--offline")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(out, "embeddings stand-in"), out)
	require.Contains(t, out, "ok    embeddings stand-in: "+srv.URL+" answers; 2 memories have a vector")

	// another model: reindex embeds everything again, with the new model
	sb.git("config", "mem.embed.model", "stand-in-2")
	var re struct {
		Vectors struct {
			Model    string `json:"model"`
			Memories int    `json:"memories"`
			Cached   int    `json:"cached"`
			Embedded int    `json:"embedded"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "reindex", "--json")), &re))
	require.Equal(t, "stand-in-2", re.Vectors.Model)
	require.Equal(t, 2, re.Vectors.Memories)
	require.Equal(t, 2, re.Vectors.Embedded)
	require.Equal(t, 2, re.Vectors.Cached)
	require.Contains(t, mustRun(t, sb, "reindex"), "embedded 0 memories with stand-in-2: 2 of 2 current memories have a vector")

	// a purge removes the memory's vectors, every model's
	require.Contains(t, mustRun(t, sb, "forget", "--purge", id), "verified")
	all := vectorFiles(t, sb.repo)
	require.NotContains(t, all, string(hash[:]))
	require.NotContains(t, all, id)
	require.Contains(t, all, "project:", "the other memory keeps its vector")
}

func TestCLIEmbeddingsDeadEndpoint(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	sb.git("config", "mem.embed.url", embedtest.DeadURL(t))
	sb.git("config", "mem.embed.model", "stand-in")
	mustRun(t, sb, "add", "--", "Run database migrations with pnpm db:migrate before starting the API server.")

	out, errOut, code := sb.run("recall", "--", "when do database migrations run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "pnpm db:migrate", "lexical recall answers")
	require.Contains(t, errOut, "git mem: embeddings not used, lexical only: ")

	out, errOut, code = sb.run("doctor", "--offline")
	require.Equal(t, 0, code, "a warning is not a failure: %s", errOut)
	require.Equal(t, 1, strings.Count(out, "embeddings stand-in"), out)
	require.Contains(t, out, "warn  embeddings stand-in: embedding endpoint")
	require.Contains(t, out, "lexical only until it answers")

	out, errOut, code = sb.run("reindex")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "indexed 1 memories")
	require.Contains(t, errOut, "embeddings not filled")
}

func TestCLIReviseEmbedsTheNewText(t *testing.T) {
	sb, _ := embeddingSandbox(t)
	id := strings.TrimSpace(mustRun(t, sb, "add", "--", "The nightly job archives old invoices."))
	mustRun(t, sb, "revise", id, "--", rotateText)
	hash := embedding.HashOf(rotateText)
	require.Contains(t, vectorFiles(t, sb.repo), string(hash[:]))
	require.Contains(t, mustRun(t, sb, "recall", "--", "widget keys cycling"), "frobnicator credentials")
}

// TestCLIEmbeddingErrorBodyIsEscaped: the body of an endpoint's HTTP error
// reaches stderr in git mem recall and git mem reindex with its terminal
// escapes and bidirectional overrides written visibly, never raw.
func TestCLIEmbeddingErrorBodyIsEscaped(t *testing.T) {
	const body = "\x1b]0;owned\x07\x1b[2Jmodel \u202egnissim\u202c not loaded"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"recall", []string{"recall", "--", "when do database migrations run"}, "git mem: embeddings not used, lexical only: "},
		{"reindex", []string{"reindex"}, "git mem: embeddings not filled: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			sb.isolate()
			url, _ := embedtest.Raw(t, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
				return err
			})
			mustRun(t, sb, "add", "--", "Run database migrations with pnpm db:migrate before starting the API server.")
			sb.git("config", "mem.embed.url", url)
			sb.git("config", "mem.embed.model", "stand-in")

			out, errOut, code := sb.run(tc.args...)
			require.Equal(t, 0, code, errOut)
			require.NotEmpty(t, out)
			require.Contains(t, errOut, tc.want)
			require.Contains(t, errOut, "HTTP 500")
			require.NotContains(t, errOut, "\x1b")
			require.NotContains(t, errOut, "\x07")
			require.NotContains(t, errOut, "\u202e")
			require.Contains(t, errOut, `\x1b]0;owned\x07\x1b[2Jmodel \u202egnissim\u202c not loaded`)
		})
	}
}
