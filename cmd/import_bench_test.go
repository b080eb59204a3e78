package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/cmd"
	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// BenchmarkImport10k imports 10,000 memories from a JSONL file into an empty
// repository through the whole command (read, parse, validate, scan for
// secrets, dedupe, write, refresh the recall snapshot): one commit.
//
//	go test ./cmd -run XXX -bench Import10k -benchtime 3x
func BenchmarkImport10k(b *testing.B) {
	const n = 10000
	rng := rand.New(rand.NewPCG(7, 11))
	// pseudo-words, so that texts differ as notes do rather than by numbers
	syll := strings.Fields("ka lo mi re tu sa ne vi po da fe gu hi ja ko lu ma no pe qui ra se ti vo wa xe yo zu")
	vocab := make([]string, 3000)
	for i := range vocab {
		var w strings.Builder
		for k := 0; k < 2+rng.IntN(3); k++ {
			w.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab[i] = w.String()
	}
	types := []string{"fact", "decision", "gotcha", "convention", "command"}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	var texts []string
	for i := 0; i < n; i++ {
		text := ""
		if i > 0 && i%20 == 0 {
			text = texts[rng.IntN(len(texts))] // a repeat: reinforced, not added
		} else {
			ws := make([]string, 8+rng.IntN(8))
			for k := range ws {
				ws[k] = vocab[rng.IntN(len(vocab))]
			}
			text = strings.Join(ws, " ")
			texts = append(texts, text)
		}
		if err := enc.Encode(map[string]any{"text": text, "type": types[len(text)%len(types)], "tags": []string{"bench"}}); err != nil {
			b.Fatal(err)
		}
	}
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	file := filepath.Join(home, "memory.jsonl")
	if err := os.WriteFile(file, data.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		repo := filepath.Join(home, fmt.Sprintf("repo%d", i))
		out := timedImport(b, repo, file)
		count, err := exec.Command("git", "-C", repo, "rev-list", "--count", "refs/memory/main").Output()
		if err != nil || strings.TrimSpace(string(count)) != "1" {
			b.Fatalf("want one commit, got %q (%v)", count, err)
		}
		if !strings.Contains(out.String(), fmt.Sprintf("read %d memories", n)) {
			b.Fatalf("unexpected output: %s", out.String())
		}
		b.StartTimer()
	}
	b.StopTimer()
}

// BenchmarkImportSharedWords imports a Markdown list whose items share most
// of their words (the worst case of finding repeats), at 10,000 items (the
// documented size) and at 20,000: the second must take about twice the
// first, not four times.
//
//	go test ./cmd -run XXX -bench ImportSharedWords -benchtime 1x
func BenchmarkImportSharedWords(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	words := strings.Fields("deploy build test cache token staging release branch review schema migration queue worker index")
	for _, n := range []int{10000, 20000} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 5))
			var data strings.Builder
			data.WriteString("# Notes\n\n")
			for i := 0; i < n; i++ {
				ws := make([]string, 10)
				for k := range ws {
					ws[k] = words[rng.IntN(len(words))]
				}
				fmt.Fprintf(&data, "- %s %d\n", strings.Join(ws, " "), i)
			}
			file := filepath.Join(home, fmt.Sprintf("notes%d.md", n))
			if err := os.WriteFile(file, []byte(data.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				repo := filepath.Join(home, fmt.Sprintf("repo%d-%d", n, i))
				out := timedImport(b, repo, file)
				if !strings.Contains(out.String(), fmt.Sprintf("read %d memories", n)) {
					b.Fatalf("unexpected output: %s", out.String())
				}
			}
		})
	}
}

// timedImport makes a repository at repo (judged by git when the benchmark
// ends) and times git mem import of file into it, the timer running only
// for the import; it returns what the import printed.
func timedImport(b *testing.B, repo, file string) *bytes.Buffer {
	b.Helper()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	gitstoretest.CheckedByGit(b, repo)
	var out, errb bytes.Buffer
	env := &cmd.Env{
		Streams: cmd.Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		Dir:     repo,
		Getenv:  func(string) string { return "" },
		Now:     time.Now,
	}
	b.StartTimer()
	if code := cmd.Run(context.Background(), env, []string{"import", file}); code != 0 {
		b.Fatalf("import: exit %d: %s", code, errb.String())
	}
	b.StopTimer()
	return &out
}
