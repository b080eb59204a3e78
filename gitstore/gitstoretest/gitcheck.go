package gitstoretest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// CheckedByGit has git itself judge the repository at dir when the test
// ends: git fsck --strict must pass, and git log must read every
// refs/memory/* ref. A test then cannot pass while leaving a repository git
// rejects (an object in the wrong format, a ref git calls broken, a tree
// fsck finds malformed). Every helper that creates a test repository calls
// it right after git init, before the cleanups that wait for the
// repository's background work, so that they run first (cleanups run last
// registered, first run). A directory gone by then (the test removed it) is
// not checked.
func CheckedByGit(t testing.TB, dir string) {
	t.Helper()
	t.Cleanup(func() {
		t.Helper()
		if problem := GitVerdict(dir); problem != "" {
			t.Errorf("git rejects the test repository %s:\n%s", dir, problem)
		}
	})
}

// Damaged marks the repository at dir as damaged on purpose by its test (an
// object deleted, a ref truncated, to see git-mem report it), so that
// CheckedByGit does not hold it against the test. Only such tests call it.
func Damaged(dir string) { damaged.Store(filepath.Clean(dir), true) }

var damaged sync.Map

// GitVerdict returns what git has against the repository at dir, "" when
// nothing: git fsck --strict's errors and warnings, the memory refs git
// calls broken, and those git log cannot walk.
func GitVerdict(dir string) string {
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	if _, ok := damaged.Load(filepath.Clean(dir)); ok {
		return ""
	}
	var problems []string
	out, errOut, err := runGit(dir, "fsck", "--strict", "--no-progress")
	if err != nil || rejects(out) || rejects(errOut) {
		problems = append(problems, "git fsck --strict: "+errString(err)+"\n"+out+errOut)
	}
	refs, errOut, err := runGit(dir, "for-each-ref", "--format=%(refname)", "refs/memory/")
	if err != nil || strings.TrimSpace(errOut) != "" {
		problems = append(problems, "git for-each-ref refs/memory/: "+errString(err)+"\n"+refs+errOut)
	}
	for _, ref := range strings.Fields(refs) {
		if out, errOut, err := runGit(dir, "log", "--format=%H %T", ref); err != nil || strings.TrimSpace(errOut) != "" {
			problems = append(problems, "git log "+ref+": "+errString(err)+"\n"+lastLines(out)+errOut)
		}
	}
	return strings.Join(problems, "\n")
}

// rejects reports whether fsck's output holds more than what a healthy
// repository shows: objects nothing reaches, and notices (an unborn HEAD).
func rejects(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "dangling ") || strings.HasPrefix(line, "unreachable ") || strings.HasPrefix(line, "notice: ") {
			continue
		}
		return true
	}
	return false
}

func errString(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// runGit runs git in dir with none of the test's or the user's settings and
// variables, so that only the repository is judged.
func runGit(dir string, args ...string) (string, string, error) {
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	c.Env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	return out.String(), errOut.String(), err
}
