package cmd

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// TestDoctorFixWords: the store names the operation that fixes a finding;
// the CLI says it with its commands, and keeps a fix in git's own words.
func TestDoctorFixWords(t *testing.T) {
	cases := []struct {
		finding gitstore.Finding
		want    string
	}{
		{gitstore.Finding{Action: gitstore.FixSaveOrPull}, "git mem add -- TEXT, or git mem pull to bring the team's"},
		{gitstore.Finding{Action: gitstore.FixRestore}, "git fsck; then git mem pull from a clone that has the memory"},
		{gitstore.Finding{Action: gitstore.FixForget, Target: "3f2a9c41d0e8b7a2"}, "git mem forget 3f2a9c41d0e8b7a2   (git mem history 3f2a9c41d0e8b7a2 shows its earlier versions)"},
		{gitstore.Finding{Action: gitstore.FixForgetEach}, "git mem forget ID for each invalid document"},
		{gitstore.Finding{Action: gitstore.FixFindGoodVersion}, "git mem history ID to find a good version; git fsck"},
		{gitstore.Finding{Action: gitstore.FixRecreatePersonal}, "move it aside; git-mem creates a new one on the next git mem add --global"},
		{gitstore.Finding{Action: gitstore.FixPush, Target: "origin"}, "git mem push origin"},
		{gitstore.Finding{Action: gitstore.FixPull, Target: "origin"}, "git mem pull origin"},
		{gitstore.Finding{Action: gitstore.FixMergeFetched, Target: "origin"}, "git mem pull --no-fetch origin"},
		{gitstore.Finding{Action: gitstore.FixShare, Target: "origin"}, "git mem share origin   (git config --add remote.origin.fetch '+refs/memory/main:refs/memory/remotes/origin/main')"},
		{gitstore.Finding{Fix: "git fsck"}, "git fsck"},
		{gitstore.Finding{}, ""},
	}
	for _, c := range cases {
		t.Run(string(c.finding.Action)+c.finding.Fix, func(t *testing.T) {
			require.Equal(t, c.want, fixWords(c.finding))
		})
	}
}
