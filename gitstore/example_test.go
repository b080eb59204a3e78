package gitstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/git-mem/git-mem/gitstore"
)

// newRepository makes an empty git repository with an identity for its
// commits, as git init and git config would.
func newRepository() string {
	dir, err := os.MkdirTemp("", "gitstore-example")
	if err != nil {
		log.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "config", "user.name", "Ann Example"},
		{"-C", dir, "config", "user.email", "ann@example.com"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			log.Fatal(err, string(out))
		}
	}
	return dir
}

// A memory is added to the project store of a repository and read back.
func Example() {
	dir := newRepository()
	defer os.RemoveAll(dir)

	repo, err := gitstore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	store := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	ctx := context.Background()
	added, err := store.Add(ctx, gitstore.Writer{Agent: "claude"}, gitstore.NewMemory{
		Type:   gitstore.TypeFact,
		Text:   "Bookings are stored in UTC.",
		Source: gitstore.SourceUser,
	})
	if err != nil {
		log.Fatal(err)
	}

	rd, err := store.Read()
	if err != nil {
		log.Fatal(err)
	}
	m, err := rd.Get(added.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Type, m.Text, m.Source, m.Agent, m.Trust)
	// Output: fact Bookings are stored in UTC. user claude 0.9
}

// A memory's history is one version per commit that changed it, newest
// first.
func ExampleStore_History() {
	dir := newRepository()
	defer os.RemoveAll(dir)

	repo, err := gitstore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	store := gitstore.NewStore(repo, gitstore.RefMain, gitstore.ScopeProject)
	ctx := context.Background()
	w := gitstore.Writer{Agent: "claude"}
	m, err := store.Add(ctx, w, gitstore.NewMemory{Type: gitstore.TypeCommand, Text: "Run make test before pushing.", Source: gitstore.SourceInferred})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := store.Revise(ctx, w, m.ID, "Run make check before pushing."); err != nil {
		log.Fatal(err)
	}
	if _, err := store.Confirm(ctx, w, m.ID); err != nil {
		log.Fatal(err)
	}

	versions, err := store.History(ctx, m.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range versions {
		fmt.Printf("%s: %s\n", v.Op, v.Memory.Text)
	}
	// Output:
	// confirm: Run make check before pushing.
	// revise: Run make check before pushing.
	// add: Run make test before pushing.
}
