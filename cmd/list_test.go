package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListLimitAndStatsFromSnapshot: list --limit N shows the first N of
// the full listing and says how many it left out, in text and JSON; stats
// counts from the recall snapshot's summaries, including memories written
// since the snapshot's base (its delta), and superseded ones as retired.
func TestListLimitAndStatsFromSnapshot(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	texts := []string{
		"Bookings are stored in UTC and converted in the React UI.",
		"Run database migrations with pnpm db:migrate before the API starts.",
		"Use snake_case for Postgres column names.",
		"Keep pull requests small: one concern per PR.",
	}
	var ids []string
	for _, tx := range texts {
		ids = append(ids, strings.TrimSpace(mustRun(t, sb, "add", "--type", "convention", "--", tx)))
	}
	mustRun(t, sb, "add", "--type", "decision", "--supersedes", ids[0], "--", "Bookings are stored in the marina's local time.")

	all := strings.Split(strings.TrimSpace(mustRun(t, sb, "list")), "\n")
	require.Len(t, all, 4)
	out, errOut, code := sb.run("list", "--limit", "2")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, all[:2], strings.Split(strings.TrimSpace(out), "\n"))
	require.Contains(t, errOut, "2 more; git mem list --limit 0 shows them all")
	require.Equal(t, strings.Join(all, "\n")+"\n", mustRun(t, sb, "list", "--limit", "0"))

	var full, two []map[string]any
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json", "--all")), &full))
	require.Len(t, full, 5)
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "list", "--json", "--all", "--limit", "2")), &two))
	require.Equal(t, full[:2], two)
	_, errOut, code = sb.run("list", "--limit", "-2")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "give a number of memories")

	// the writes above went to the snapshot's delta
	_, err := os.Stat(filepath.Join(sb.repo, ".git", "mem", "recall.snapshot.delta"))
	require.NoError(t, err)
	var stats struct {
		Stores []struct {
			Scope   string         `json:"scope"`
			Current int            `json:"current"`
			Retired int            `json:"retired"`
			ByType  map[string]int `json:"by_type"`
		} `json:"stores"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustRun(t, sb, "stats", "--json")), &stats))
	require.Equal(t, "project", stats.Stores[0].Scope)
	require.Equal(t, 4, stats.Stores[0].Current)
	require.Equal(t, 1, stats.Stores[0].Retired)
	require.Equal(t, map[string]int{"convention": 3, "decision": 1}, stats.Stores[0].ByType)
}
