package gitstoretest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGitVerdict: git's verdict is empty on a healthy repository, and names
// what git rejects in one where SHA-1 objects and a memory ref were written
// into a SHA-256 repository (what git-mem did before it read the format).
func TestGitVerdict(t *testing.T) {
	git := func(dir string, args ...string) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	healthy := t.TempDir()
	git(healthy, "init", "-q")
	git(healthy, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "one")
	git(healthy, "update-ref", "refs/memory/main", "HEAD")
	require.Empty(t, GitVerdict(healthy))

	broken := t.TempDir()
	git(broken, "init", "-q", "--object-format=sha256")
	content := []byte("blob 3\x00abc")
	sum := sha1.Sum(content)
	id := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write(content)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.MkdirAll(filepath.Join(broken, ".git", "objects", id[:2]), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, ".git", "objects", id[:2], id[2:]), z.Bytes(), 0o444))
	require.NoError(t, os.MkdirAll(filepath.Join(broken, ".git", "refs", "memory"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, ".git", "refs", "memory", "main"), []byte(id+"\n"), 0o644))
	verdict := GitVerdict(broken)
	require.Contains(t, verdict, "git fsck --strict")
	require.Contains(t, verdict, "refs/memory/main")

	Damaged(broken)
	require.Empty(t, GitVerdict(broken))
	require.Empty(t, GitVerdict(filepath.Join(t.TempDir(), "gone")))
}
