package memfile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseSharedWords parses 10,000 list items (the documented size)
// and 20,000, as Markdown, JSON and JSONL, whose items share most of their
// words: the time per run must double, not quadruple.
//
//	go test ./memfile -run XXX -bench ParseSharedWords
func BenchmarkParseSharedWords(b *testing.B) {
	words := strings.Fields("deploy build test cache token staging release branch review schema migration queue worker index")
	for _, format := range []string{"md", "json", "jsonl"} {
		for _, n := range []int{10000, 20000} {
			texts := make([]string, n)
			for i := range texts {
				texts[i] = fmt.Sprintf("%s %s %s %s %s %s %d", words[i%14], words[i*7%14], words[i*3%14], words[i*5%14], words[i*11%14], words[i/14%14], i)
			}
			var data strings.Builder
			switch format {
			case "md":
				data.WriteString("# Notes\n\n")
				for _, t := range texts {
					data.WriteString("- " + t + "\n\n")
				}
			case "json":
				out, _ := json.MarshalIndent(texts, "", "  ")
				data.Write(out)
			case "jsonl":
				for _, t := range texts {
					out, _ := json.Marshal(map[string]string{"text": t})
					data.Write(append(out, '\n'))
				}
			}
			file := []byte(data.String())
			b.Run(fmt.Sprintf("%s/items=%d", format, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					items, err := Parse("notes."+format, file)
					if err != nil || len(items) != n {
						b.Fatalf("%d items, %v", len(items), err)
					}
				}
			})
		}
	}
}
