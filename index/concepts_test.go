package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const testConcepts = `
# a comment
feature flag, toggle <- kill switch, hide unfinished, switch, shut it   # "shut it" is just "shut": dropped
no arrow on this line, ignored
exclusion constraint <- no overlap
deploy <- ship it to users, deploy
`

func TestParseConcepts(t *testing.T) {
	table := parseConcepts(testConcepts, loadLexicon())
	tests := []struct {
		description string
		want        []string
	}{
		{"killswitch", []string{"featureflag", "toggl"}},    // a thesaurus phrase is one term, and specific
		{"hide unfinish", []string{"featureflag", "toggl"}}, // stemmed like a query
		{"switch", []string{"featureflag", "toggl"}},
		{"shut", nil},
		{"overlap", nil}, // "exclusion constraint" is two terms: no target
		{"ship user", []string{"deploy"}},
		{"deploy", nil}, // a concept never describes itself
	}
	for _, tt := range tests {
		t.Run(tt.description, func(t *testing.T) {
			require.Equal(t, tt.want, table[tt.description])
		})
	}
}

func TestDescribedConceptsCoverTheirWords(t *testing.T) {
	terms := QueryTerms("naming rule for a new switch that hides unfinished work")
	require.Equal(t, []string{"name", "rule", "new", "switch", "hide", "unfinish"}, terms)
	got := describedConcepts(&lexicon{built: map[byte]map[string][]string{'c': parseConcepts(testConcepts, loadLexicon())}}, terms)
	require.Equal(t, [][]string{nil, nil, nil, {"featureflag", "toggl"}, {"featureflag", "toggl"}, {"featureflag", "toggl"}}, got)
}
