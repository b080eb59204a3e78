package secret

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// JoinMark splits a fake credential in the corpus files where a scanner of
// pushed code would otherwise see a whole token; it is removed on reading.
const JoinMark = "{+}"

// fixtureLine is one non-comment line of a corpus file.
type fixtureLine struct {
	n    int // 1-based line number
	kind string
	text string
}

func readFixture(t testing.TB, name string, withKind bool) []fixtureLine {
	t.Helper()
	path := filepath.Join("..", "fixtures", "secrets", name)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []fixtureLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.ReplaceAll(sc.Text(), JoinMark, "")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fl := fixtureLine{n: n, text: line}
		if withKind {
			kind, text, ok := strings.Cut(line, " | ")
			require.Truef(t, ok, "%s:%d: want `<kind> | <text>`", name, n)
			fl.kind, fl.text = strings.TrimSpace(kind), text
		}
		lines = append(lines, fl)
	}
	require.NoError(t, sc.Err())
	return lines
}

func kinds(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Kind
	}
	return out
}

func hasKind(fs []Finding, kind string) bool {
	for _, f := range fs {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// TestCorpus checks the fixture corpus: every secret is refused with the
// expected kind, and no look-alike is refused.
func TestCorpus(t *testing.T) {
	secrets := readFixture(t, "secrets.txt", true)
	lookalikes := readFixture(t, "lookalikes.txt", false)
	require.GreaterOrEqual(t, len(secrets), 35, "secrets.txt corpus too small")
	require.GreaterOrEqual(t, len(lookalikes), 35, "lookalikes.txt corpus too small")

	admitted := 0
	for _, l := range secrets {
		fs := Scan(l.text)
		if !hasKind(fs, l.kind) {
			admitted++
			t.Errorf("secrets.txt:%d: want a %q finding, got %v in %q", l.n, l.kind, kinds(fs), l.text)
		}
	}
	refused := 0
	for _, l := range lookalikes {
		if fs := Scan(l.text); len(fs) > 0 {
			refused++
			for _, f := range fs {
				t.Errorf("lookalikes.txt:%d: refused: %s (%q) in %q", l.n, f, l.text[f.Start:f.End], l.text)
			}
		}
	}
	require.Zero(t, admitted, "secrets admitted")
	require.Zero(t, refused, "look-alikes refused")
}

func TestScanKinds(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // kinds, in order
	}{
		{"empty", "", nil},
		{"prose", "the API listens on port 8080", nil},
		{"github", "deploy with GITHUB_TOKEN=ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6", []string{"GitHub token"}},
		{"multi-line key block",
			"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAFAKEFAKEFAKE\n-----END OPENSSH PRIVATE KEY-----\nthanks",
			[]string{"private key block"}},
		{"two in one text",
			"AKIAZ7FAKEQ4TESTK3Y2 and password=hunter2",
			[]string{"AWS access key id", "password assignment"}},
		{"anthropic beats openai", "sk-ant-api03-FAKEq1w2e3r4t5y6u7i8o9p0asdfghjkl", []string{"Anthropic API key"}},
		{"openai", "sk-proj-FAKE1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuV", []string{"OpenAI API key"}},
		{"token inside URL wins over URL", "https://x-access-token:ghs_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6@github.com/o/r", []string{"GitHub token"}},
		{"jwt inside header", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJlLWZha2U", []string{"JWT"}},
		{"pair after prose colon", "env: API_KEY=Zk3pQ9vL2mX8rT4w", []string{"secret assignment"}},
		{"yaml password", "password: hunter22", []string{"password assignment"}},
		{"yaml password plain word at end", "password: correcthorse", []string{"password assignment"}},
		{"quoted colon", `"password": "s"`, nil},
		{"go assignment", `token := "Zk3pQ9vL2mX8rT4wY6bN"`, []string{"secret assignment"}},
		{"ruby hash", `'password' => 'Fak3-Passw0rd'`, []string{"password assignment"}},
		{"camel key", `dbPassword="Fak3-Passw0rd"`, []string{"password assignment"}},
		{"prose after colon", "password: rotate it quarterly", nil},
		{"prose after equals", "password = whatever you chose at setup", nil},
		{"env reference", "DB_PASSWORD=DB_PASSWORD_FROM_VAULT", nil},
		{"template", "password={{ .Values.db.password }}", nil},
		{"percent var", "set PASSWORD=%DB_PASSWORD%", nil},
		{"dotted reference", "password=settings.DB_PASSWORD", nil},
		{"vault ref", "password: vault:secret/data/db#password", nil},
		{"url no password", "https://user@example.com/x", nil},
		{"url placeholder password", "postgres://app:${PGPASSWORD}@db/app", nil},
		{"url password with @", "postgres://app:p@ss-w0rd@db.internal/app", []string{"connection string with password"}},
		{"slack docs placeholder", "xoxb-000000000000-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxx", nil},
		{"hex entropy is not flagged", "etag=9f86d081884c7d659a2feaa0c55ad015", nil},
		{"base64 of text", "note=VGhpcyBpcyBqdXN0IGEgbm90ZSwgbm90IGEga2V5Lg==", nil},
		{"entropy", "cookie=Zk3pQ9vL2mX8rT4wY6bN1cJ7", []string{"high-entropy value"}},
		{"entropy identifier", "cookie=ThisIsMyVeryLongClassName1", nil},
		{"go.sum", "github.com/stretchr/testify v1.12.1 h1:EuwCh5fleGS7H32xRwO3wRGT7DxrDhLAT6FF8MpWDWE=", nil},
		{"password is", "the staging password is Hunter2-fake.", []string{"password assignment"}},
		{"password is prose", "the password is stored in vault, the password was rotated", nil},
		{"password is short", "the password is 12 characters long", nil},
		{"netrc", "machine ci login bot password Fak3Netrc", []string{"password assignment"}},
		{"flag with a word", "see the --password flag docs", nil},
		{"node options", "export NODE_OPTIONS=--max-old-space-size=4096", nil},
		{"ssh fingerprint", "fingerprint: uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s", nil},
		{"jdbc password", "jdbc:postgresql://db:5432/app?user=app&password=S3cret99", []string{"password assignment"}},
		{"pem header only", "-----BEGIN RSA PRIVATE KEY-----", []string{"private key block"}},
		{"aws secret", "aws_secret_access_key=Zk3pQ9vL2mX8rT4wY6bN1cJ7Zk3pQ9vL2mX8rT4w", []string{"AWS secret access key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Scan(tt.text)
			require.Equal(t, tt.want, nilIfEmpty(kinds(fs)), "findings %v", fs)
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestFindingSpan(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"token", "deploy with GITHUB_TOKEN=ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6 now", "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"},
		{"assignment value", `local: password="Fak3-Passw0rd"`, "Fak3-Passw0rd"},
		{"unquoted value drops full stop", "the password=hunter2.", "hunter2"},
		{"url", "db at postgres://app:S3cr3t@db:5432/app today", "postgres://app:S3cr3t@db:5432"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Scan(tt.text)
			require.Len(t, fs, 1, "findings %v", fs)
			require.Equal(t, tt.want, tt.text[fs[0].Start:fs[0].End])
		})
	}
}

func TestFindingString(t *testing.T) {
	require.Equal(t, "GitHub token at byte 17", Finding{Kind: "GitHub token", Start: 17, End: 57}.String())
	fs := Scan("deploy with GITHUB_TOKEN=ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6")
	require.Len(t, fs, 1)
	require.Equal(t, "GitHub token at byte 25", fs[0].String())
}

func TestKeyWords(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"AWS_SECRET_ACCESS_KEY", []string{"aws", "secret", "access", "key"}},
		{"dbPassword", []string{"db", "password"}},
		{"APIKey", []string{"api", "key"}},
		{"spring.datasource.password", []string{"spring", "datasource", "password"}},
		{"x-api-key", []string{"x", "api", "key"}},
		{"_authToken", []string{"auth", "token"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			require.Equal(t, tt.want, keyWords(tt.key))
		})
	}
}

func TestSecretKind(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"DB_PASSWORD", "password assignment"},
		{"password", "password assignment"},
		{"db_pwd", "password assignment"},
		{"PWD", ""},
		{"SECRET_TOKEN", "secret assignment"},
		{"api_key", "secret assignment"},
		{"apiKey", "secret assignment"},
		{"client_secret", "secret assignment"},
		{"secret_key_base", "secret assignment"},
		{"max_tokens", ""},
		{"password_min_length", ""},
		{"token_url", ""},
		{"SECRET_KEY_FILE", ""},
		{"secrets", ""},
		{"bypass", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			require.Equal(t, tt.want, secretKind(keyWords(tt.key)))
		})
	}
}

func TestHighEntropy(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"Zk3pQ9vL2mX8rT4wY6bN1cJ7", true},
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9pLm3Rt", true},
		{"short1A", false},
		{"processIncomingWebhookEventsV2", false},
		{"my_service_account_2024_prod", false},
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", false},
		{"123e4567-e89b-12d3-a456-426614174000", false},
		{"sha512-Zk3pQ9vL2mX8rT4wY6bN1cJ7Zk3pQ9vL2mX8rT4w", false},
		{"SGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0", false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", false},
	}
	for _, tt := range tests {
		t.Run(tt.v, func(t *testing.T) {
			require.Equal(t, tt.want, highEntropy(tt.v), "entropy %.2f, word share %.2f", shannon(tt.v), wordShare(tt.v))
		})
	}
}

func TestScanOrderedAndDisjoint(t *testing.T) {
	var b strings.Builder
	for _, l := range readFixture(t, "secrets.txt", true) {
		b.WriteString(l.text)
		b.WriteString("\n")
	}
	text := b.String()
	fs := Scan(text)
	require.NotEmpty(t, fs)
	checkFindings(t, text, fs)
}

// checkFindings asserts the invariants every Scan result keeps.
func checkFindings(t testing.TB, text string, fs []Finding) {
	t.Helper()
	prevEnd := 0
	for i, f := range fs {
		require.NotEmpty(t, f.Kind)
		require.True(t, 0 <= f.Start && f.Start < f.End && f.End <= len(text), "finding %d %+v out of range [0,%d]", i, f, len(text))
		require.GreaterOrEqual(t, f.Start, prevEnd, "finding %d %+v overlaps or is out of order", i, f)
		prevEnd = f.End
	}
}

// ordinary300 is a 300-byte memory with no credential in it.
var ordinary300 = func() string {
	s := "The API listens on port 8080; run `make test` before push. Config lives in internal/config/loader.go " +
		"and the password reset flow lives in auth.ts. Commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b fixed the " +
		"flaky retry test; see https://example.com/docs/deploy?page=2 for the steps, and PORT=8080 for local runs. "
	for len(s) < 300 {
		s += "ok "
	}
	return s[:300]
}()

func BenchmarkScan(b *testing.B) {
	var big strings.Builder
	for big.Len() < 8<<10 {
		big.WriteString(ordinary300)
	}
	text8k := big.String()[:8<<10]
	for _, bc := range []struct {
		name, text string
	}{
		{"ordinary300", ordinary300},
		{"ordinary8KiB", text8k},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				if fs := Scan(bc.text); len(fs) != 0 {
					b.Fatalf("unexpected findings %v", fs)
				}
			}
		})
	}
}

func FuzzScan(f *testing.F) {
	f.Add("")
	f.Add(ordinary300)
	f.Add("password=hunter2 postgres://a:b@c AKIAZ7FAKEQ4TESTK3Y2")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----")
	f.Add("\"api_key\": \"Zk3pQ9vL2mX8rT4wY6bN\", key=Zk3pQ9vL2mX8rT4wY6bN1cJ7")
	f.Add("a: b: c= d:=\"e\" 'f' => `g` \xff\xfe=\xff")
	for _, l := range readFixture(f, "secrets.txt", true) {
		f.Add(l.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFindings(t, text, Scan(text))
	})
}

// Every rule's pattern compiles (they are compiled only when a text holds
// one of their keywords), and every rule has a keyword to run on.
func TestRulesCompile(t *testing.T) {
	loadRules()
	rules := append(append([]rule(nil), tokenRules...), contextRules...)
	require.NotEmpty(t, rules)
	for _, r := range rules {
		require.NotPanics(t, func() { require.NotNil(t, r.re()) }, r.kind)
		require.NotEmpty(t, r.keywords, "%s: a rule without keywords never runs", r.kind)
	}
}
