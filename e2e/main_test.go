package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// GitMem is the git-mem binary TestMain built; GitMemDir is its directory
// (git-mem-hook and git-mem-mcp are built beside it, so install registers
// the hooks with git-mem-hook and git mem mcp runs git-mem-mcp, as for a user), put first on the PATH of agent runs (so hooks and MCP
// configs may say just "git-mem").
var GitMem, GitMemDir string

// TestMain builds git-mem, git-mem-hook and git-mem-mcp once for every test
// of the package.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "git-mem-e2e-")
	if err != nil {
		panic(err)
	}
	GitMemDir = filepath.Join(tmp, "bin")
	GitMem = filepath.Join(GitMemDir, "git-mem")
	for _, name := range []string{"git-mem", "git-mem-hook", "git-mem-mcp"} {
		build := exec.Command("go", "build", "-o", filepath.Join(GitMemDir, name), "github.com/git-mem/git-mem/cmd/"+name)
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", name, err, out)
			os.RemoveAll(tmp)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// gitEnv is the environment of git commands run by tests: no user or system
// config, a fixed identity.
func gitEnv(home string) []string {
	return []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=E2E Person", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=E2E Person", "GIT_COMMITTER_EMAIL=e2e@example.com",
	}
}

// Git runs the git CLI in dir and returns its output; failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv(t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// NewRepo returns a new repository (branch main, one commit) in a temp dir.
func NewRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# test project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", "README.md")
	Git(t, dir, "commit", "-q", "-m", "init")
	return dir
}
