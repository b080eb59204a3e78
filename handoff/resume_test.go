package handoff

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore"
)

// A resumed session gets what was written since its last injection. Stored
// times are whole seconds, so a memory written later in the same second as
// that injection still counts; one written a second before does not.
func TestResumeInjectsWhatIsNewerThanTheLastInjection(t *testing.T) {
	set, st := bootRepo(t)
	injected := bootNow.Add(-time.Hour).Add(400 * time.Millisecond) // the last injection, mid-second
	clock := bootNow.Add(-time.Hour - time.Second)
	set.Repo.Now = func() time.Time { return clock }
	before := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeGotcha, Text: "Refund webhooks arrive twice; dedupe on the event id"})
	clock = injected.Add(300 * time.Millisecond) // stored as the injection's second
	sameSecond := addMem(t, st, gitstore.NewMemory{Type: gitstore.TypeGotcha, Text: "Staging deploys need the VPN up or helm times out"})
	require.Equal(t, injected.Truncate(time.Second), sameSecond.Created, "stored to the second")

	res, err := SessionStart(context.Background(), set, StartOptions{Branch: "main", Now: bootNow, Since: injected})
	require.NoError(t, err)
	require.Contains(t, res.IDs, sameSecond.ID)
	require.NotContains(t, res.IDs, before.ID)
}
