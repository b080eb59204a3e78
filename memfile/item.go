package memfile

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// Item is one candidate memory found in a file.
type Item struct {
	Text      string   `json:"text"`
	Type      string   `json:"type"`
	Tags      []string `json:"tags,omitempty"`
	Paths     []string `json:"paths,omitempty"`
	Keys      []string `json:"keys,omitempty"`
	Source    string   `json:"source,omitempty"` // "" when the file does not say
	Tentative bool     `json:"tentative,omitempty"`
	Pinned    bool     `json:"pinned,omitempty"`
	// Line is the line of the file the memory starts on (1-based).
	Line int `json:"line"`
	// ID is the full id a git mem export gave the memory; "" otherwise.
	ID string `json:"id,omitempty"`
	// Restore is the whole memory when the file is a git mem export (JSON or
	// JSONL) that carries its id and creation time.
	Restore *gitstore.Memory `json:"restore,omitempty"`
	// Refused, when not "", says why the item must not be imported (for
	// example a superseded decision record); it is reported, not written.
	Refused string `json:"refused,omitempty"`
}

// ErrFormat is returned for a file that is none of the formats Parse reads.
var ErrFormat = errors.New("not a memory file")

// Formats lists the file name endings Parse reads.
var Formats = []string{".md", ".markdown", ".mdc", ".json", ".jsonl"}

// Readable reports whether Parse reads a file of this name.
func Readable(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, f := range Formats {
		if ext == f {
			return true
		}
	}
	return false
}

// Parse reads the memories of one file. name (a slash path) decides the
// format by its ending (.md, .markdown, .mdc, .json, .jsonl) and its base
// name (MEMORY.md); the content decides the kind of Markdown.
func Parse(name string, data []byte) ([]Item, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdc":
		return parseMarkdown(path.Base(name), text), nil
	case ".json":
		return parseJSON(text)
	case ".jsonl":
		return parseJSONL(text)
	}
	return nil, fmt.Errorf("%w: %s: read Markdown (.md, .mdc), JSON or JSONL", ErrFormat, name)
}
