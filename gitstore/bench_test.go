package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// seededStore returns an on-disk store holding n memories, written in one commit.
func seededStore(b *testing.B, n int) (*Store, []string) {
	b.Helper()
	dir := b.TempDir()
	runGitB(b, dir, "init", "-q", "-b", "main")
	gitstoretest.CheckedByGit(b, dir)
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := NewStore(r, RefMain, ScopeProject)
	ids := make([]string, n)
	_, err = s.Update(context.Background(), Writer{Agent: "bench"}, func(tx *Tx) error {
		for i := range ids {
			ids[i] = NewID()
			tx.Put(&Memory{ID: ids[i], Type: TypeFact, Text: fmt.Sprintf("seed memory %d about module %d", i, i%97),
				Source: SourceUser, Trust: 0.9, Created: tx.Now(), Updated: tx.Now(), ValidFrom: tx.Now()})
		}
		tx.Describe(OpAdd, "seed", ids[0])
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, ids
}

func runGitB(b *testing.B, dir string, args ...string) {
	b.Helper()
	if out, err := gitCmd(dir, args...).CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v %s", args, err, out)
	}
}

var sizes = []int{1000, 10000}

// BenchmarkAdd shows that the cost of a write does not grow with the store:
// compare ns/op at n=1000 and n=10000.
func BenchmarkAdd(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, _ := seededStore(b, n)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Add(ctx, Writer{Agent: "bench"}, NewMemory{Text: fmt.Sprintf("benchmark memory %d", i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkList reads every memory: objects loose as written, and packed
// as after git gc.
func BenchmarkList(b *testing.B) {
	for _, n := range sizes {
		for _, packed := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/loose", n)
			if packed {
				name = fmt.Sprintf("n=%d/packed", n)
			}
			b.Run(name, func(b *testing.B) {
				s, _ := seededStore(b, n)
				if packed {
					runGitB(b, s.Repo.CommonDir, "gc", "-q")
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ms, err := s.List(Filter{Now: time.Now()})
					if err != nil || len(ms) != n {
						b.Fatalf("list: %d, %v", len(ms), err)
					}
				}
			})
		}
	}
}

func BenchmarkShow(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, ids := seededStore(b, n)
			set := NewSet(s.Repo)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := ids[i%len(ids)]
				if _, m, err := set.Find(id[:8]); err != nil || m.ID != id {
					b.Fatalf("find %s: %v", id, err)
				}
			}
		})
	}
}

// gitCmd prepares a git command run in dir.
func gitCmd(dir string, args ...string) *exec.Cmd {
	return exec.Command("git", append([]string{"-C", dir}, args...)...)
}

// BenchmarkWorktreeStatus compares the worktree proof with the git status it
// spares, on a clean worktree of files (in 30 directories) and on the same
// worktree with one new file, where the proof's time comes before git
// status's: the figures behind maxProvenEntries.
func BenchmarkWorktreeStatus(b *testing.B) {
	for _, files := range []int{100, 300, maxProvenEntries} {
		dir := b.TempDir()
		runGitB(b, dir, "init", "-q", "-b", "main")
		gitstoretest.CheckedByGit(b, dir)
		old := time.Now().Add(-time.Hour)
		for i := range files {
			p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%30), fmt.Sprintf("file%03d.go", i))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
		}
		runGitB(b, dir, "add", "-A")
		runGitB(b, dir, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "files")
		r, err := OpenIn(dir)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		for _, state := range []string{"clean", "new file"} {
			if state == "new file" {
				if err := os.WriteFile(filepath.Join(dir, "pkg29", "zz_new.go"), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("files=%d/%s/git-status", files, state), func(b *testing.B) {
				for b.Loop() {
					if _, err := r.Git(ctx, statusArgs...); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("files=%d/%s/worktree-status", files, state), func(b *testing.B) {
				for b.Loop() {
					if _, err := r.WorktreeStatus(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSetShortIDs: the display ids of ten hits, unique in the store,
// as recall, the hooks and the MCP server show them: fan-out trees read
// from a repository opened afresh (as a hook process does) and from one
// whose trees are cached.
func BenchmarkSetShortIDs(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s, ids := seededStore(b, n)
		hits := ids[:10]
		b.Run(fmt.Sprintf("n=%d/fresh", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := Open(s.Repo.CommonDir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := NewSet(r).ShortIDs(hits); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/cached", n), func(b *testing.B) {
			set := NewSet(s.Repo)
			for i := 0; i < b.N; i++ {
				if _, err := set.ShortIDs(hits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
