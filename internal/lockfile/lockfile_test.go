package lockfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLiveLockIsNotBroken: a lock held by a live process (this one) or taken
// by git without a holder line is waited for, not broken.
func TestLiveLockIsNotBroken(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    bool
	}{
		{"this process", string(ownerLine()), false},
		{"git's own lock", "", false},
		{"a value being written", "0123456789012345678901234567890123456789\n", false},
		{"another machine", "git-mem pid 999999999 on some-other-host\n", false},
		{"a process that is gone", "git-mem pid " + deadPid(t) + " on " + hostname(t) + "\n", true},
		{"garbage", "git-mem pid x on " + hostname(t) + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "main.lock")
			require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o644))
			require.Equal(t, tt.want, Abandoned(p))
		})
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	require.NoError(t, err)
	return h
}

// deadPid is the id of a process that ran and exited.
func deadPid(t *testing.T) string {
	cmd := exec.Command("git", "--version")
	require.NoError(t, cmd.Run())
	return strconv.Itoa(cmd.Process.Pid)
}
