package gitconfig

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitConfigList is what git reads from the config file path: one
// "section[.subsection].key" and value per setting, in order, as
// git config --list -z gives them (a key alone: "true"); ok is false when
// git refuses the file.
func gitConfigList(t *testing.T, path string) ([][2]string, bool) {
	t.Helper()
	c := exec.Command("git", "config", "--file", path, "--list", "-z")
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := c.Output()
	if err != nil {
		return nil, false
	}
	var got [][2]string
	for _, item := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "\n")
		if !ok {
			value = "true"
		}
		got = append(got, [2]string{name, value})
	}
	return got, true
}

// requireReadAsGit writes text to path and requires Parse to accept
// it when git does, and then to read what git reads; it says whether the
// file was accepted.
func requireReadAsGit(t *testing.T, path, text string) bool {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	want, gitOK := gitConfigList(t, path)
	entries, ok := Parse([]byte(text))
	require.Equal(t, gitOK, ok, "git and Parse disagree on accepting %q", text)
	if !ok {
		return false
	}
	var got [][2]string
	for _, e := range entries {
		got = append(got, [2]string{e.Name, e.Value})
	}
	require.Equal(t, want, got, "%q", text)
	return true
}

// TestParseConfigAsGit: every file is read as git reads it, setting by
// setting, or refused as git refuses it.
func TestParseConfigAsGit(t *testing.T) {
	files := map[string]string{
		"plain":             "[core]\n\tbare = false\n\trepositoryformatversion = 0\n[mem]\n\tinjectChars = 1200\n",
		"case":              "[MEM]\n\tInjectChars = 7\n[Remote \"Origin\"]\n\tURL = x\n",
		"subsection":        "[remote \"origin\"]\n\turl = git@example.com:a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
		"subsection escape": "[branch \"a\\\"b\\\\c\"]\n\tremote = origin\n",
		"legacy dotted":     "[remote.Origin]\n\turl = y\n",
		"implicit true":     "[core]\n\tbare\n\tfilemode\t\n",
		"comment after key": "[core]\n\tfilemode ; comment\n",
		"empty value":       "[user]\n\tname =\n\temail = \n",
		"comments":          "# top\n; also\n[user] # after header\n\tname = Ada # trailing\n\temail = a@b ; trailing\n",
		"quotes":            "[user]\n\tname = \"  Ada  Lovelace \" \n\tnote = a\"  b  \"c\n\thash = \"#not a comment\"\n",
		"escapes":           "[x]\n\tv = a\\tb\\nc\\\\d\\\"e\n\tw = back\\bspace\n",
		"continuation":      "[x]\n\tv = first \\\n  second\n\tw = end  \\\n\n",
		"inner blanks":      "[x]\n\tv =   a   b\t c   \n",
		"header and key":    "[x] v = 1\n[y]w\n",
		"repeated":          "[x]\n\tv = 1\n[x]\n\tv = 2\n",
		"crlf":              "[x]\r\n\tv = 1\r\n",
		"bom":               "\xef\xbb\xbf[x]\n\tv = 1\n",
		"dashes":            "[my-section]\n\tmy-key = 3\n",
		"bad key":           "[x]\n\t1v = 1\n",
		"no section":        "v = 1\n",
		"unclosed quote":    "[x]\n\tv = \"abc\n",
		"bad escape":        "[x]\n\tv = a\\qb\n",
		"bad header":        "[x \"y]\n\tv = 1\n",
		"junk after key":    "[x]\n\tv w\n",
		"empty subsection":  "[x.]\n\tv = 1\n",
		"spaced subsection": "[remote  \"my origin\"] url=a=b\n",
		"no final newline":  "[x]\n\tv = \"1\"",
		"unclosed header":   "[x\n\tv = 1\n",
		"quoted comment":    "[x]\n\tv = \"a ; b\" # c\n",
	}
	dir := t.TempDir()
	for name, text := range files {
		t.Run(name, func(t *testing.T) {
			requireReadAsGit(t, filepath.Join(dir, strings.ReplaceAll(name, " ", "-")), text)
		})
	}
}

// TestParseConfigRandomAsGit: files made of config syntax's pieces at
// random are accepted or refused as git does, and read as git reads them.
func TestParseConfigRandomAsGit(t *testing.T) {
	pieces := []string{"[x]", "[Y \"s b\"]", "[z.Q]", "\n", "\n", "\n", "k", "Key-2", " ", "\t", "=", " = ", "v", "a b", "\"", "\\", "\\\n", "\\t", "#", ";", "\r\n", "]", "-", "1"}
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	accepted := 0
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("[x]\n")
		for n := rng.IntN(14); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if requireReadAsGit(t, filepath.Join(dir, fmt.Sprintf("c%d", i)), b.String()) {
			accepted++
		}
	}
	require.Greater(t, accepted, 50, "enough of the files are valid to compare what is read")
}

// TestConfigGet: the last value wins across files and within one, names
// are matched without case, subsections with it.
func TestConfigGet(t *testing.T) {
	first, ok := Parse([]byte("[mem]\n\tinjectChars = 100\n\tenabled = no\n[remote \"Up\"]\n\turl = one\n"))
	require.True(t, ok)
	second, ok := Parse([]byte("[MEM]\n\tINJECTCHARS = 200\n[include]\n\tpath = x\n"))
	require.True(t, ok)
	c := &Config{entries: append(first, second...)}
	tests := []struct {
		section, sub, key, want string
	}{
		{"mem", "", "injectChars", "200"},
		{"Mem", "", "injectchars", "200"},
		{"mem", "", "enabled", "no"},
		{"remote", "Up", "url", "one"},
		{"remote", "up", "url", ""},
		{"mem", "", "absent", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, c.Get(tt.section, tt.sub, tt.key), "%s.%s.%s", tt.section, tt.sub, tt.key)
	}
	require.Equal(t, 200, c.Int("mem", "injectChars", 5))
	require.Equal(t, 5, c.Int("mem", "absent", 5))
	require.False(t, c.Bool("mem", "enabled", true))
	require.True(t, c.Bool("mem", "absent", true))
	require.True(t, c.HasIncludes())
	require.False(t, (&Config{entries: first}).HasIncludes())
}

// FuzzParseConfigAsGit: any file is accepted or refused as git config
// --list accepts or refuses it, and read setting by setting as git reads it.
func FuzzParseConfigAsGit(f *testing.F) {
	for _, seed := range []string{
		"[core]\n\tbare = false\n", "[remote \"o\"]\n\turl = x\n", "[x]\n\tv = \"a ; b\" # c\n",
		"[x]\n\tv = first \\\n  second\n", "[x.]\n\tv = 1\n", "\xef\xbb\xbf[x]\r\n\tv\r\n", "[x]\n\tv = a\\qb\n",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		requireReadAsGit(t, filepath.Join(dir, "config"), text)
	})
}
