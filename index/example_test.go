package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
)

// Recall ranks the memories of a repository's stores against a question.
func ExampleRecall() {
	dir, err := os.MkdirTemp("", "index-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "config", "user.name", "Ann Example"},
		{"-C", dir, "config", "user.email", "ann@example.com"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			log.Fatal(err, string(out))
		}
	}

	repo, err := gitstore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	// the repository's stores alone (gitstore.OpenSet adds the user's
	// personal store)
	set := gitstore.NewSet(repo)
	store := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	ctx := context.Background()
	w := gitstore.Writer{Agent: "claude"}
	var acc index.Access // a command's way with the recall snapshot
	for _, text := range []string{
		"Bookings are stored in UTC and shown in the venue's time zone.",
		"The payment webhook retries three times, then parks the event.",
		"Run make check before pushing; CI runs the same target.",
	} {
		if _, err := acc.Remember(ctx, set, store, w, gitstore.NewMemory{Type: gitstore.TypeFact, Text: text, Source: gitstore.SourceUser}); err != nil {
			log.Fatal(err)
		}
	}

	res, err := index.Recall(ctx, set, index.Options{Query: "which time zone are bookings stored in?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Hits[0].Memory.Text)
	// Output: Bookings are stored in UTC and shown in the venue's time zone.
}
