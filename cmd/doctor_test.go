package cmd

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/internal/health"
)

// TestDoctorFixWords: the store names the operation that fixes a finding;
// the CLI says it with its commands, and keeps a fix in git's own words.
func TestDoctorFixWords(t *testing.T) {
	cases := []struct {
		finding health.Finding
		want    string
	}{
		{health.Finding{Action: health.FixSaveOrPull}, "git mem add -- TEXT, or git mem pull to bring the team's"},
		{health.Finding{Action: health.FixRestore}, "git fsck; then git mem pull from a clone that has the memory"},
		{health.Finding{Action: health.FixForget, Target: "3f2a9c41d0e8b7a2"}, "git mem forget 3f2a9c41d0e8b7a2   (git mem history 3f2a9c41d0e8b7a2 shows its earlier versions)"},
		{health.Finding{Action: health.FixForgetEach}, "git mem forget ID for each invalid document"},
		{health.Finding{Action: health.FixFindGoodVersion}, "git mem history ID to find a good version; git fsck"},
		{health.Finding{Action: health.FixRecreatePersonal}, "move it aside; git-mem creates a new one on the next git mem add --global"},
		{health.Finding{Action: health.FixPush, Target: "origin"}, "git mem push origin"},
		{health.Finding{Action: health.FixPull, Target: "origin"}, "git mem pull origin"},
		{health.Finding{Action: health.FixMergeFetched, Target: "origin"}, "git mem pull --no-fetch origin"},
		{health.Finding{Action: health.FixShare, Target: "origin"}, "git mem share origin   (git config --add remote.origin.fetch '+refs/memory/main:refs/memory/remotes/origin/main')"},
		{health.Finding{Fix: "git fsck"}, "git fsck"},
		{health.Finding{}, ""},
	}
	for _, c := range cases {
		t.Run(string(c.finding.Action)+c.finding.Fix, func(t *testing.T) {
			require.Equal(t, c.want, fixWords(c.finding))
		})
	}
}
