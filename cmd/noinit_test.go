package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoInitRegistration: the root lists its verbs (verbs) and doctor its
// checks (doctorChecks); no file of cmd's registers anything in an init
// function, whose order would follow the files' names.
func TestNoInitRegistration(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				require.NotEqual(t, "init", fn.Name.Name, "%s has an init function", name)
			}
		}
	}
	require.Len(t, doctorChecks(), 9)
	root := newRootCmd(&Env{Getenv: func(string) string { return "" }})
	require.Len(t, root.Commands(), len(verbs()), "every verb listed is a command")
}
