package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildForBench builds the commands' binaries into dir as the README
// installs them (without cgo, so statically linked) and a no-op binary
// that reads its stdin and exits, as a hook that does nothing would: what
// every ratio is taken against. It returns the no-op's path.
func buildForBench(b *testing.B, dir string, cmds ...string) (noop string) {
	b.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go command to build the binaries")
	}
	must(b, os.MkdirAll(dir, 0o755))
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, c := range cmds {
		args = append(args, "github.com/git-mem/git-mem/cmd/"+c)
	}
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build %v: %v\n%s", cmds, err, out)
	}
	noopDir := filepath.Join(b.TempDir(), "noop")
	must(b, os.MkdirAll(noopDir, 0o755))
	must(b, os.WriteFile(filepath.Join(noopDir, "go.mod"), []byte("module noop\n\ngo 1.22\n"), 0o644))
	must(b, os.WriteFile(filepath.Join(noopDir, "main.go"), []byte("package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() { io.Copy(io.Discard, os.Stdin) }\n"), 0o644))
	noop = filepath.Join(b.TempDir(), "noop-bin")
	build = exec.Command("go", "build", "-o", noop, ".")
	build.Dir = noopDir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build noop: %v\n%s", err, out)
	}
	return noop
}
