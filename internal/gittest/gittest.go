// Package gittest runs the real git for the tests of git-mem's own git
// layer (internal/gitobj, internal/gitrefs, gitstore), which hold every
// format against git itself: a repository made by git, git's commands run
// in it without the system's or the user's configuration, and every object
// as git reads it. It imports nothing of the module, so that gitobj's own
// tests can use it; tests alone import it.
package gittest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Run runs git in dir, with no system configuration and dir as its home
// (so no user configuration), and returns its output; the test fails when
// git does.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// Init is a new repository made by git init (with extra arguments), on
// branch main, with a user name and email to commit as; it returns the
// work tree.
func Init(t testing.TB, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	Run(t, dir, append([]string{"init", "-q", "-b", "main"}, extra...)...)
	Run(t, dir, "config", "user.name", "Test User")
	Run(t, dir, "config", "user.email", "test@example.com")
	return dir
}

// Object is an object as git cat-file shows it.
type Object struct {
	// Type is git's name of it: commit, tree, blob or tag.
	Type string
	Data []byte
}

// CatFileAll is every object of the repository in dir, by hex id, as git
// itself reads it.
func CatFileAll(t testing.TB, dir string) map[string]Object {
	t.Helper()
	c := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch")
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.Output()
	require.NoError(t, err)
	all := map[string]Object{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		f := strings.Fields(line)
		require.Len(t, f, 3, line)
		n, err := strconv.Atoi(f[2])
		require.NoError(t, err)
		data := make([]byte, n+1) // the content and its newline
		_, err = io.ReadFull(r, data)
		require.NoError(t, err)
		all[f[0]] = Object{Type: f[1], Data: data[:n]}
	}
	return all
}
