package cmd_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layer is each top-level package's place in the one-way import direction of
// docs/architecture.md: a package may import only packages of a lower layer.
var layer = map[string]int{
	"agents":   0,
	"secret":   0,
	"gitstore": 1,
	"index":    2,
	"memfile":  2,
	"handoff":  3,
	"hooks":    4,
	"mcp":      4,
	"install":  4,
	"cmd":      5,
}

// owners: each outside library is imported by one package only (its path
// under the module).
var owners = map[string]string{
	"github.com/go-git/go-git/v5":                    "gitstore",
	"github.com/blevesearch/bleve/v2":                "index/bleveindex",
	"github.com/spf13/cobra":                         "cmd",
	"github.com/modelcontextprotocol/go-sdk/mcp":     "mcp",
	"github.com/modelcontextprotocol/go-sdk/jsonrpc": "mcp",
	"github.com/tailscale/hujson":                    "install",
	"github.com/pelletier/go-toml/v2":                "install",
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "../...").Output()
	require.NoError(t, err)
	const module = "github.com/git-mem/git-mem/"
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		require.NoError(t, dec.Decode(&p))
		top := strings.SplitN(strings.TrimPrefix(p.ImportPath, module), "/", 2)[0]
		from, known := layer[top]
		if !known {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				depTop := strings.SplitN(dep, "/", 2)[0]
				to, known := layer[depTop]
				require.True(t, known, "%s imports %s, which has no place in the layering", p.ImportPath, imp)
				require.True(t, depTop == top || to < from, "%s imports %s against the one-way direction of docs/architecture.md", p.ImportPath, imp)
				continue
			}
			for lib, owner := range owners {
				if imp == lib || strings.HasPrefix(imp, lib+"/") {
					require.Equal(t, owner, strings.TrimPrefix(p.ImportPath, module), "%s imports %s, which only %s may import", p.ImportPath, imp, owner)
				}
			}
		}
	}
	require.Greater(t, checked, 3)
}

// importers: who may import a package of the module other than by the
// layering alone. The installer is the CLI's; the hooks and the MCP server
// never link it. So are the import and export file formats.
var importers = map[string][]string{
	"install": {"cmd"},
	"memfile": {"cmd"},
}

func TestOwnedPackagesHaveTheirImporters(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "../...").Output()
	require.NoError(t, err)
	const module = "github.com/git-mem/git-mem/"
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		require.NoError(t, dec.Decode(&p))
		from := strings.TrimPrefix(p.ImportPath, module)
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if allowed, owned := importers[dep]; owned {
				require.Contains(t, allowed, from, "%s imports %s, which only %v may import", p.ImportPath, imp, allowed)
			}
		}
	}
}

// TestHookBinaryStaysSmall: git-mem-hook runs before every agent session and
// prompt, and Go initializes every linked package at start-up; bleve, cobra
// and the MCP SDK would multiply its cost (see hooks/bench_test.go); the
// installer is never run by a hook.
func TestHookBinaryStaysSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./git-mem-hook").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/git-mem/git-mem/hooks")
	for _, dep := range deps {
		for _, banned := range []string{"github.com/blevesearch/bleve/v2", "github.com/spf13/cobra", "github.com/modelcontextprotocol/go-sdk", "github.com/git-mem/git-mem/index/bleveindex", "github.com/git-mem/git-mem/mcp", "github.com/git-mem/git-mem/install"} {
			require.False(t, dep == banned || strings.HasPrefix(dep, banned+"/"), "git-mem-hook links %s", dep)
		}
	}
}
