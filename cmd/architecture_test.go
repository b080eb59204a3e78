package cmd_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layer is each top-level package's place in the one-way import direction of
// docs/architecture.md: a package may import only packages of a lower layer.
var layer = map[string]int{
	"internal":  0, // git's own formats, beneath the memory model
	"agents":    0,
	"secret":    0,
	"memerr":    1, // the errors every layer returns
	"gitstore":  2,
	"embedding": 3,
	"linkstore": 3,
	"memview":   3,
	"index":     4,
	"memfile":   4,
	"handoff":   5,
	"surface":   6,
	"hooks":     7,
	"mcp":       7,
	"install":   7,
	"webui":     7,
	"cmd":       8,
}

// owners: each outside library is imported by one package only (its path
// under the module).
var owners = map[string]string{
	"github.com/go-git/go-git/v5":                    "internal/gitobj",
	"github.com/blevesearch/bleve/v2":                "index/bleveindex",
	"github.com/spf13/cobra":                         "cmd",
	"github.com/spf13/pflag":                         "cmd",
	"github.com/modelcontextprotocol/go-sdk/mcp":     "mcp",
	"github.com/modelcontextprotocol/go-sdk/jsonrpc": "mcp",
	"github.com/tailscale/hujson":                    "install",
	"github.com/pelletier/go-toml/v2":                "install",
	"golang.org/x/sys":                               "index/bleveindex",
}

func TestImportDirection(t *testing.T) {
	checked := 0
	for _, p := range modulePackages(t) {
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
// never link it; the MCP server and the search index are git-mem-mcp's. So are the import and export file formats. The table of
// agents is asked by the surfaces only, and the test support packages by
// tests only (test imports are not listed by go list's Imports).
var importers = map[string][]string{
	"agents":                {"hooks", "mcp", "install", "cmd"},
	"install":               {"cmd"},
	"memfile":               {"cmd"},
	"webui":                 {"cmd"},
	"index/indextest":       {},
	"gitstore/gitstoretest": {"index/indextest"},
	"embedding/embedtest":   {},
	"internal/gittest":      {},
	// the search index and the MCP server are wired by the MCP server's
	// binary alone, so that git-mem links neither (TestCLIBinaryStaysLight)
	"index/bleveindex": {"cmd/git-mem-mcp"},
	"mcp":              {"cmd/git-mem-mcp"},
	// the eval harness is git mem eval's: no hook or server links it
	"index/evaluation":         {"cmd"},
	"index/evaluation/dataset": {"index/evaluation", "cmd"},
	// the recall snapshot's file format is index's: it reads and writes
	// the file, and ranks from it
	"index/snapshot": {"index"},
	// git's plumbing is the memory model's alone: every other package
	// reaches git through gitstore
	"internal/gitobj":      {"gitstore", "internal/gitrefs", "internal/gitworktree"},
	"internal/gitrefs":     {"gitstore"},
	"internal/gitignore":   {"gitstore", "internal/gitworktree"},
	"internal/gitconfig":   {"gitstore", "internal/gitworktree"},
	"internal/gitworktree": {"gitstore"},
}

// imports: what a package of the module may import of the module, where the
// layering alone would allow more. The table of agents, gitstore's test
// support and the stand-in embedding server stand alone; the file formats and index's test support need the
// memory model only.
var imports = map[string][]string{
	"agents":                {},
	"memfile":               {"gitstore", "memview"},
	"memview":               {"gitstore"},
	"linkstore":             {"gitstore", "internal/lockfile", "memerr"},
	"index/indextest":       {"gitstore", "gitstore/gitstoretest"},
	"gitstore/gitstoretest": {},
	"embedding/embedtest":   {},
	// the eval's data needs the memory model only (index's tests read it);
	// the harness ranks through index's public API
	"index/evaluation/dataset": {"gitstore", "memerr"},
	"index/evaluation":         {"index", "index/evaluation/dataset", "memerr"},
	"internal/gitconfig":       {},
	"internal/gitignore":       {},
	"internal/gitobj":          {},
	"internal/gitrefs":         {"internal/gitobj", "internal/lockfile"},
	"internal/gitworktree":     {"internal/gitconfig", "internal/gitignore", "internal/gitobj"},
	// lock files and atomic writes stand alone: every package that keeps
	// files takes its locks there
	"internal/lockfile": {},
	// the git layer's tests run git through it; it imports nothing of the
	// module, so that gitobj's own tests can use it
	"internal/gittest": {},
	// the layout of <git dir>/mem and the doctor's vocabulary stand alone too
	"internal/memdir": {},
	"internal/health": {},
	// the error vocabulary names a secret's findings, nothing else
	"memerr": {"secret"},
	// the snapshot's format needs the memory model only, never index's
	// analysis or ranking
	"index/snapshot": {"gitstore"},
}

func TestOwnedPackagesImportOnlyTheirs(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range modulePackages(t) {
		from := strings.TrimPrefix(p.ImportPath, module)
		allowed, owned := imports[from]
		if !owned {
			continue
		}
		seen[from] = true
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				require.Contains(t, allowed, dep, "%s imports %s; it may import only %v of the module", p.ImportPath, imp, allowed)
			}
		}
	}
	for pkg := range imports {
		require.True(t, seen[pkg], "no package %s: update the imports table", pkg)
	}
}

func TestOwnedPackagesHaveTheirImporters(t *testing.T) {
	for _, p := range modulePackages(t) {
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
// installer is never run by a hook. The embedding client speaks HTTP over a
// socket of its own, so the hook links neither net nor cgo.
func TestHookBinaryStaysSmall(t *testing.T) {
	deps := depsOf(t, "./git-mem-hook")
	require.Contains(t, deps, "github.com/git-mem/git-mem/hooks")
	for _, dep := range deps {
		// package net (and so net/http) would make the hook a cgo program
		// with its resolver, dynamically linked (embedding/dial_unix.go)
		require.NotContains(t, []string{"net", "runtime/cgo"}, dep, "git-mem-hook links %s", dep)
		for _, banned := range append([]string{"net/http", "crypto/tls", "github.com/blevesearch/bleve/v2", "github.com/spf13/cobra", "github.com/modelcontextprotocol/go-sdk", "github.com/git-mem/git-mem/index/bleveindex", "github.com/git-mem/git-mem/mcp", "github.com/git-mem/git-mem/install", "github.com/git-mem/git-mem/memfile"}, goGitUnlinked...) {
			require.False(t, dep == banned || strings.HasPrefix(dep, banned+"/"), "git-mem-hook links %s", dep)
		}
	}
}

// goGitUnlinked are the go-git packages neither binary links. The object
// package links an OpenPGP implementation for signature checks; git-mem
// reads and writes commits and trees itself (internal/gitobj/codec.go). The
// storage packages link go-git's config and URL packages, whose
// initialization (a gob registry, URL patterns) every process would pay
// (docs/bench-scale.md); git-mem keeps its own object database and config reader
// (internal/gitobj/db.go, internal/gitconfig).
var goGitUnlinked = []string{
	"github.com/go-git/go-git/v5/plumbing/object",
	"github.com/go-git/go-git/v5/storage",
	"github.com/go-git/go-git/v5/config",
	"github.com/go-git/go-git/v5/plumbing/format/config",
	"github.com/go-git/gcfg",
	"github.com/ProtonMail/go-crypto",
}

// TestCLIBinaryStaysLight: every git-mem command pays the initialization
// of every package linked into it; bleve's (its index builds Levenshtein
// automata in init) and the MCP SDK's (JSON schema, OAuth, YAML) cost more
// than the rest of a short command. Only git-mem-mcp links them. The man
// pages are written by git-mem itself, without cobra's Markdown-based
// generator (whose Markdown parser's init every command would pay).
func TestCLIBinaryStaysLight(t *testing.T) {
	deps := depsOf(t, "./git-mem")
	require.Contains(t, deps, "github.com/git-mem/git-mem/cmd")
	for _, dep := range deps {
		for _, banned := range append([]string{"github.com/blevesearch/bleve/v2", "github.com/blevesearch/zapx", "github.com/modelcontextprotocol/go-sdk", "github.com/git-mem/git-mem/index/bleveindex", "github.com/git-mem/git-mem/mcp", "github.com/spf13/cobra/doc", "github.com/russross/blackfriday/v2"}, goGitUnlinked...) {
			require.False(t, dep == banned || strings.HasPrefix(dep, banned+"/"), "git-mem links %s", dep)
		}
	}
	deps = depsOf(t, "./git-mem-mcp")
	require.Contains(t, deps, "github.com/git-mem/git-mem/index/bleveindex")
	require.Contains(t, deps, "github.com/git-mem/git-mem/mcp")
}

// TestGitstoreAPIHidesGoGit: go-git is internal/gitobj's own business.
// The exported functions, methods, types, fields, variables and constants
// of gitobj and of gitstore above it name git-mem's types (gitstore.Hash,
// not go-git's), so no caller needs go-git to hold or compare what the
// store returns, and go-git can change under gitobj alone.
func TestGitstoreAPIHidesGoGit(t *testing.T) {
	for _, dir := range []string{"../gitstore", "../internal/gitobj"} {
		leaks := goGitInExportedAPI(t, dir)
		require.Empty(t, leaks, "%s's exported API names go-git types; give it its own type and convert inside", dir)
	}
}

// goGitInExportedAPI lists each exported declaration of the package in dir
// (its non-test files) whose type refers to a go-git package.
func goGitInExportedAPI(t *testing.T, dir string) []string {
	t.Helper()
	const goGit = "github.com/go-git/"
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var leaks []string
	parsed := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		parsed++
		// the names this file gives go-git's packages
		gogit := map[string]bool{}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if !strings.HasPrefix(p, goGit) {
				continue
			}
			local := packageName(p)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			gogit[local] = true
		}
		if len(gogit) == 0 {
			continue
		}
		check := func(what string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && gogit[x.Name] {
						leaks = append(leaks, fmt.Sprintf("%s: %s names %s.%s", fset.Position(sel.Pos()), what, x.Name, sel.Sel.Name))
					}
				}
				return true
			})
		}
		// fields checks what a struct or interface shows: its exported
		// fields and methods, and what it embeds (promoted to its surface).
		fields := func(what string, fl *ast.FieldList) {
			if fl == nil {
				return
			}
			for _, fd := range fl.List {
				if len(fd.Names) == 0 {
					check(what+" (embedded)", fd.Type)
				}
				for _, n := range fd.Names {
					if n.IsExported() {
						check(what+"."+n.Name, fd.Type)
					}
				}
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				what := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
					what = recv.(*ast.Ident).Name + "." + what
				}
				check(what, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						switch ty := s.Type.(type) {
						case *ast.StructType:
							fields(s.Name.Name, ty.Fields)
						case *ast.InterfaceType:
							fields(s.Name.Name, ty.Methods)
						default:
							check(s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							check(n.Name, s.Type)
							if s.Type != nil || i >= len(s.Values) {
								continue
							}
							// without a written type the value gives it
							switch v := s.Values[i].(type) {
							case *ast.SelectorExpr:
								check(n.Name, v)
							case *ast.CompositeLit:
								check(n.Name, v.Type)
							}
						}
					}
				}
			}
		}
	}
	require.Greater(t, parsed, 3, "no Go files in %s", dir)
	return leaks
}

// packageName is the name an import path's package goes by without a local
// name, as go-git's are written: the last element, "go-git/v5" is git.
func packageName(importPath string) string {
	elems := strings.Split(importPath, "/")
	name := elems[len(elems)-1]
	if regexp.MustCompile(`^v[0-9]+$`).MatchString(name) && len(elems) > 1 {
		name = elems[len(elems)-2]
	}
	return strings.TrimPrefix(name, "go-")
}

// module is the import path prefix of this module's packages.
const module = "github.com/git-mem/git-mem/"

// listedPackage is a package of the module and what it imports.
type listedPackage struct {
	ImportPath string
	Imports    []string
}

// modulePackages lists every package of the module with its imports.
func modulePackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "../...").Output()
	require.NoError(t, err)
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		require.NoError(t, dec.Decode(&p))
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// depsOf is every package a binary links.
func depsOf(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	require.NoError(t, err)
	return strings.Fields(string(out))
}
