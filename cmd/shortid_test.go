package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShownShortIDsResolve: the short ids list, export and boot --json
// show are unique in the store, superseded memories and memories not shown
// included, so git mem show accepts each.
func TestShownShortIDsResolve(t *testing.T) {
	sb := newSandbox(t)
	sb.git("commit", "-q", "--allow-empty", "-m", "init")
	sb.memOK("handoff", "--done", "the booking fix", "--next", "its tests")
	var handoff struct {
		Handoff struct {
			ID      string `json:"id"`
			ShortID string `json:"short_id"`
		} `json:"handoff"`
	}
	require.NoError(t, json.Unmarshal([]byte(sb.memOK("boot", "--json")), &handoff))
	hid := handoff.Handoff.ID
	require.Len(t, hid, 16)
	// a memory whose id shares the handoff's first 8 digits, one that
	// shares 3f2a9c with a superseded one, and the superseded one
	// exactly 8: the ninth digit differs
	ninth := "0"
	if hid[8] == '0' {
		ninth = "1"
	}
	near := hid[:8] + ninth + strings.Repeat("0", 7)
	// the first in the private store: a display id is unique across the stores
	for i, d := range []struct{ id, validTo string }{{near, ""}, {"3f2a9c0000000001", ""}, {"3f2a9c7700000002", "2026-01-02T00:00:00Z"}} {
		doc := map[string]any{"id": d.id, "type": "fact", "text": "Deploy note " + d.id, "source": "user", "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z", "valid_from": "2026-01-01T00:00:00Z"}
		if d.validTo != "" {
			doc["valid_to"] = d.validTo
		}
		line, err := json.Marshal(doc)
		require.NoError(t, err)
		file := filepath.Join(sb.home, fmt.Sprintf("note%d.jsonl", i))
		require.NoError(t, os.WriteFile(file, append(line, '\n'), 0o644))
		if i == 0 {
			sb.memOK("import", "--private", file)
		} else {
			sb.memOK("import", file)
		}
	}

	resolves := func(what, id, short string) {
		t.Helper()
		require.True(t, strings.HasPrefix(id, short), "%s: %s of %s", what, short, id)
		var shown struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(sb.memOK("show", "--json", short)), &shown), "%s: git mem show %s", what, short)
		require.Equal(t, id, shown.ID, what)
	}
	require.NoError(t, json.Unmarshal([]byte(sb.memOK("boot", "--json")), &handoff))
	require.Equal(t, hid, handoff.Handoff.ID)
	require.Len(t, handoff.Handoff.ShortID, 9, "boot --json's handoff")
	resolves("boot --json", hid, handoff.Handoff.ShortID)

	for _, id := range []string{hid, near} {
		var shown struct {
			ShortID string `json:"short_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(sb.memOK("show", "--json", id)), &shown))
		require.Len(t, shown.ShortID, 9, "git mem show %s", id)
	}
	require.Contains(t, sb.memOK("handoff"), "handoff "+hid[:9]+" on main")
	res := sb.mcpCall(nil, "memory_show", map[string]any{"id": near})
	require.Contains(t, fmt.Sprint(res["content"]), near[:9]+" ")
	require.NotContains(t, fmt.Sprint(res["content"]), near[:8]+" ")

	for _, args := range [][]string{{"list", "--json"}, {"export", "--format", "json"}} {
		var views []struct {
			ID      string `json:"id"`
			ShortID string `json:"short_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(sb.memOK(args...)), &views), "%v", args)
		seen := map[string]string{}
		for _, v := range views {
			seen[v.ID] = v.ShortID
			resolves(fmt.Sprint(args), v.ID, v.ShortID)
		}
		require.Equal(t, "3f2a9c0", seen["3f2a9c0000000001"], "%v", args)
		if args[0] == "list" {
			require.Len(t, seen[near], 9, "%v", args)
		}
	}

	// recall shows one memory of the store whose first 6 digits another
	// shares (superseded): its id is extended past them, in its JSON and
	// in its text, and MCP's memory_recall says the same
	var hits []struct {
		ID      string `json:"id"`
		ShortID string `json:"short_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(sb.memOK("recall", "--json", "--", "Deploy note 3f2a9c0000000001")), &hits))
	require.NotEmpty(t, hits)
	require.Equal(t, "3f2a9c0000000001", hits[0].ID)
	require.Equal(t, "3f2a9c0", hits[0].ShortID)
	for _, h := range hits {
		resolves("recall --json", h.ID, h.ShortID)
	}
	require.Contains(t, sb.memOK("recall", "--", "Deploy note 3f2a9c0000000001"), "[3f2a9c0,")
	res = sb.mcpCall(nil, "memory_recall", map[string]any{"query": "Deploy note 3f2a9c0000000001"})
	require.Contains(t, fmt.Sprint(res["content"]), "[3f2a9c0,")

	// superseding says the old memory's display id
	_, errOut, code := sb.mem("add", "--supersedes", "3f2a9c0", "--", "Deploy notes live in the wiki now")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "superseded 3f2a9c0:")
}
