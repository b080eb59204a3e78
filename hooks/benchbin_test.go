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
	noop = buildMain(b, "noop", "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() { io.Copy(io.Discard, os.Stdin) }\n")
	return noop
}

// peakSource is a command that runs its arguments and writes the child's
// peak resident memory, in kilobytes, to the file PEAK_OUT names. Started
// from it, the child's figure is its own: Linux counts into the peak of a
// process the memory of the one that started it, up to its exec, and a
// benchmark holding a large store in memory would otherwise be measured.
const peakSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		os.WriteFile(os.Getenv("PEAK_OUT"), []byte(fmt.Sprint(ru.Maxrss)), 0o644)
	}
	if err != nil {
		os.Exit(1)
	}
}
`

// buildMain builds a one-file main package from source and returns the
// binary's path.
func buildMain(b *testing.B, name, source string) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), name)
	must(b, os.MkdirAll(dir, 0o755))
	must(b, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+name+"\n\ngo 1.22\n"), 0o644))
	must(b, os.WriteFile(filepath.Join(dir, "main.go"), []byte(source), 0o644))
	bin := filepath.Join(b.TempDir(), name+"-bin")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return bin
}
