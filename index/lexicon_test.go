package index

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite lexicon.txt from thesaurus.txt, glossary.txt and concepts.txt")

// lexiconSources are the people-written vocabulary files, as compileLexicon takes them.
func lexiconSources(t *testing.T) (thesaurus, concepts string) {
	t.Helper()
	read := func(name string) string {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		return string(data)
	}
	return read("thesaurus.txt") + "\n" + read("glossary.txt"), read("concepts.txt")
}

// TestLexicon fails when lexicon.txt is not what its sources compile to;
// -update rewrites it.
func TestLexicon(t *testing.T) {
	got := compileLexicon(lexiconSources(t))
	if *update {
		require.NoError(t, os.WriteFile("lexicon.txt", []byte(got), 0o644))
		return
	}
	require.Equal(t, got, lexiconText, "lexicon.txt is stale: run go test ./index -run TestLexicon -update")
	_, body, _ := strings.Cut(got, "\n")
	require.Equal(t, printOf(body), AnalysisPrint(), "the first line is the print of the rest")
	lx := parseLexicon(got)
	tok, ok := lx.phrase("roll back")
	require.True(t, ok)
	require.Equal(t, "rollback", tok)
	require.True(t, lx.endsPhrase("back"))
	require.False(t, lx.endsPhrase("no-such-word"))
	require.Contains(t, lx.synonyms("deploy"), "ship")
	require.Nil(t, lx.synonyms("no-such-word"))
	require.NotEmpty(t, lx.concepts("hide unfinish"))
	// every compiled line is found by its key, and what sorts before the
	// first line or after the last is not
	lines := strings.Split(strings.TrimSuffix(lx.lines, "\n"), "\n")
	require.Greater(t, len(lines), 1000)
	for _, k := range []string{"", "\x00", "~~~"} {
		for _, kind := range []byte{'c', 'e', 'p', 's', 'a', 'z'} {
			_, ok := lx.lookup(kind, k)
			require.False(t, ok, "%c %q", kind, k)
		}
	}
	for _, line := range lines {
		key, vals, _ := strings.Cut(line[2:], "\t")
		got, ok := lx.lookup(line[0], key)
		require.True(t, ok, line)
		require.Equal(t, strings.Fields(vals), got, line)
	}
}

func BenchmarkLoadLexicon(b *testing.B) {
	for b.Loop() {
		parseLexicon(lexiconText)
	}
}
