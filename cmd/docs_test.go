package cmd_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// architectureDoc is the map of the code these tests hold to the code.
const architectureDoc = "../docs/architecture.md"

func readArchitectureDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(architectureDoc)
	require.NoError(t, err)
	return string(doc)
}

// docSection returns the lines of the doc from the heading (a whole line)
// to the next heading of the same or a higher level.
func docSection(t *testing.T, doc, heading string) []string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, heading)
	require.GreaterOrEqual(t, start, 0, "docs/architecture.md has no heading %q", heading)
	level := strings.Index(heading, " ")
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if n := strings.Index(lines[i], " "); n > 0 && n <= level && strings.Trim(lines[i][:n], "#") == "" {
			end = i
			break
		}
	}
	return lines[start+1 : end]
}

// docPackageTable returns the packages the doc's package table has a row
// for: the first code block of its packages section, a row per package,
// its directory first.
func docPackageTable(t *testing.T, doc string) []string {
	t.Helper()
	row := regexp.MustCompile(`^([a-z][a-z0-9-]*(?:/[a-z0-9-]+)*)/\s`)
	var pkgs []string
	in := false
	for _, l := range docSection(t, doc, "## Packages and the direction of imports") {
		if strings.HasPrefix(l, "```") {
			if in {
				break
			}
			in = true
			continue
		}
		if m := row.FindStringSubmatch(l); in && m != nil {
			pkgs = append(pkgs, m[1])
		}
	}
	require.NotEmpty(t, pkgs, "docs/architecture.md's package table has no rows")
	return pkgs
}

// TestArchitectureDocListsEveryPackage: a newcomer finds every package of
// the module in the doc's table, and no row for a package that is gone.
func TestArchitectureDocListsEveryPackage(t *testing.T) {
	var pkgs []string
	for _, p := range modulePackages(t) {
		pkgs = append(pkgs, strings.TrimPrefix(p.ImportPath, module))
	}
	rows := docPackageTable(t, readArchitectureDoc(t))
	sort.Strings(pkgs)
	sort.Strings(rows)
	require.Equal(t, pkgs, rows, "docs/architecture.md's package table must have one row per package of go list ./...")
}

// docCode returns the text of every backticked span of the doc (the package
// table's code block included).
func docCode(doc string) []string {
	var spans []string
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(doc, -1) {
		spans = append(spans, m[1])
	}
	return spans
}

// TestArchitectureDocPathsExist: a file or directory of the repository the
// doc names in backticks exists. A path counts as the repository's when it
// starts with one of the repository's top-level directories or names a Go
// file or script; runtime paths (<git dir>/mem/..., refs/memory/main) do
// not.
func TestArchitectureDocPathsExist(t *testing.T) {
	top, err := os.ReadDir("..")
	require.NoError(t, err)
	dirs := map[string]bool{}
	for _, e := range top {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs[e.Name()] = true
		}
	}
	path := regexp.MustCompile(`^[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*/?$`)
	checked := 0
	var missing []string
	for _, span := range docCode(readArchitectureDoc(t)) {
		if !path.MatchString(span) || !strings.Contains(span, "/") {
			continue
		}
		first := strings.SplitN(span, "/", 2)[0]
		if !dirs[first] && !strings.HasSuffix(span, ".go") && !strings.HasSuffix(span, ".sh") {
			continue
		}
		checked++
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(span))); err != nil {
			missing = append(missing, span)
		}
	}
	require.Greater(t, checked, 10)
	require.Empty(t, missing, "docs/architecture.md names paths the repository does not have")
}

// declared lists the top-level names a package declares in its non-test
// files, methods and struct fields as Type.Name.
func declared(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if idx, ok := recv.(*ast.IndexExpr); ok {
					recv = idx.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fd := range st.Fields.List {
								for _, n := range fd.Names {
									names[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// TestArchitectureDocNamesExist: every exported name the doc gives with its
// package (`index.Recall`, `gitstore.Repo.MergeFetched`) is declared there.
func TestArchitectureDocNamesExist(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=Name,Dir", "../...").Output()
	require.NoError(t, err)
	dirs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ Name, Dir string }
		require.NoError(t, dec.Decode(&p))
		dirs[p.Name] = append(dirs[p.Name], p.Dir)
	}
	decls := map[string]map[string]bool{}
	qualified := regexp.MustCompile(`(?:^|[^\w./])([a-z][a-z0-9]*)\.([A-Z]\w*(?:\.[A-Z]\w*)?)`)
	checked := 0
	var missing []string
	for _, span := range docCode(readArchitectureDoc(t)) {
		for _, m := range qualified.FindAllStringSubmatch(span, -1) {
			pkg, name := m[1], m[2]
			if dirs[pkg] == nil || pkg == "main" {
				continue
			}
			checked++
			found := false
			for _, dir := range dirs[pkg] {
				if decls[dir] == nil {
					decls[dir] = declared(t, dir)
				}
				found = found || decls[dir][name]
			}
			if !found {
				missing = append(missing, pkg+"."+name)
			}
		}
	}
	require.Greater(t, checked, 10)
	require.Empty(t, missing, "docs/architecture.md names what its package does not declare")
}

// testsOwn are the packages only tests import or run: what they read of the
// environment is a test's business, not a user's.
var testsOwn = []string{"e2e", "embedding/embedtest", "gitstore/gitstoretest", "index/indextest", "internal/gittest"}

// environmentReaders lists the packages of the module whose production code
// calls os.Getenv, os.LookupEnv or os.Environ; the test support packages and
// the end-to-end tests are tests' own.
func environmentReaders(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles", "../...").Output()
	require.NoError(t, err)
	var readers []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
		}
		require.NoError(t, dec.Decode(&p))
		rel := strings.TrimPrefix(p.ImportPath, module)
		if slices.Contains(testsOwn, rel) {
			continue
		}
		reads := false
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && slices.Contains([]string{"Getenv", "LookupEnv", "Environ"}, sel.Sel.Name) {
						reads = true
					}
				}
				return !reads
			})
		}
		if reads {
			readers = append(readers, rel)
		}
	}
	return readers
}

// TestArchitectureDocNamesEnvironmentReaders: the doc's list of the
// packages that read the environment is the list of those that do, so a
// package that starts reading a variable says which and why there.
func TestArchitectureDocNamesEnvironmentReaders(t *testing.T) {
	entry := regexp.MustCompile("^- `([a-z][a-z0-9/-]*)`")
	var listed []string
	for _, l := range docSection(t, readArchitectureDoc(t), "## The environment") {
		if m := entry.FindStringSubmatch(l); m != nil {
			listed = append(listed, m[1])
		}
	}
	readers := environmentReaders(t)
	require.NotEmpty(t, readers)
	sort.Strings(listed)
	sort.Strings(readers)
	require.Equal(t, readers, listed, "the packages docs/architecture.md lists under \"The environment\" must be those whose code calls os.Getenv, os.LookupEnv or os.Environ")
}

// TestArchitectureDocNamesEverySetting: every mem.* key the code reads
// through the configuration (Config().Get, Int, Bool) is among the settings
// the doc's configuration section lists.
func TestArchitectureDocNamesEverySetting(t *testing.T) {
	var section strings.Builder
	for _, l := range docSection(t, readArchitectureDoc(t), "## Configuration") {
		section.WriteString(l + "\n")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`(mem\\.[A-Za-z.*]+)`").FindAllStringSubmatch(section.String(), -1) {
		listed[strings.ToLower(m[1])] = true
	}
	read := regexp.MustCompile(`\.(?:Get\("mem", "([A-Za-z]*)", "([A-Za-z]+)"|(?:Int|Bool)\("mem", "([A-Za-z]+)")`)
	checked := 0
	var missing []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			checked++
			key := "mem." + m[3]
			switch {
			case m[1] != "":
				key = "mem." + m[1] + ".*"
			case m[2] != "":
				key = "mem." + m[2]
			}
			if !listed[strings.ToLower(key)] {
				missing = append(missing, key+" ("+path+")")
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, checked, 5)
	require.Empty(t, missing, "docs/architecture.md's configuration section does not list settings the code reads")
}
