package memfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memview"
)

// record is a memory in JSON: a simple {text, type, tags} object, or the
// whole memory as git mem export and --json write it (memview.View, the
// one outside shape of a memory; its display fields are ignored).
type record memview.View

func (r *record) item(line int) Item {
	it := Item{
		Text: r.Text, Type: strings.ToLower(strings.TrimSpace(r.Type)), Tags: r.Tags, Paths: r.Paths, Keys: r.Keys,
		Source: r.Source, Tentative: r.Tentative, Pinned: r.Pinned, Line: line,
	}
	if it.Type == "" {
		it.Type = InferType(r.Text, "")
	}
	if isID(r.ID) && !r.Created.IsZero() {
		it.ID = r.ID
		it.Restore = &gitstore.Memory{
			Schema: gitstore.SchemaVersion, ID: r.ID, Agent: r.Agent, Subagent: r.Subagent, Session: r.Session, Author: r.Author,
			Anchor: r.Anchor, Created: r.Created, Updated: r.Updated, ValidFrom: r.ValidFrom, ValidTo: r.ValidTo,
			Supersedes: r.Supersedes, SupersededBy: r.SupersededBy, Events: r.Events, Reinforced: r.Reinforced, Origin: r.Origin,
		}
	}
	return it
}

func isID(s string) bool {
	if len(s) != gitstore.IDHexLen {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// LineError is a file that is not JSON (or JSONL) at a line: the whole file
// is not a memory file (it wraps ErrFormat).
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// decodeOne reads one memory: a string or an object. A record that is JSON
// but not a memory (a field of the wrong kind) is an item refused with the
// reason, so that it is reported at its line, the same way in a dry run and
// in an import, while the file's other memories are read; JSON that does
// not parse makes the whole file unreadable.
func decodeOne(raw json.RawMessage, line int) (Item, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Item{}, &LineError{line, fmt.Errorf("%w: %v", ErrFormat, err)}
		}
		return Item{Text: s, Type: InferType(s, ""), Line: line}, nil
	}
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return Item{Line: line, Refused: "not a memory: " + recordError(typeErr) + "; fix or remove this record"}, nil
		}
		return Item{}, &LineError{line, fmt.Errorf("%w: not a memory (a string or an object with text): %v", ErrFormat, err)}
	}
	return r.item(line), nil
}

// recordError says which field of a record has the wrong kind of value.
func recordError(e *json.UnmarshalTypeError) string {
	if e.Field == "" {
		return fmt.Sprintf("a JSON %s where a string or an object with text is expected", e.Value)
	}
	return fmt.Sprintf("its field %q is a JSON %s, not %s", e.Field, e.Value, kindOf(e.Type.Kind().String()))
}

// kindOf names a Go kind in JSON's words.
func kindOf(k string) string {
	switch k {
	case "slice", "array":
		return "a list"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	}
	return "a number"
}

// parseJSON reads an array of memories, or an object holding one under
// "memories".
func parseJSON(text string) ([]Item, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrFormat, err)
	}
	if d, ok := tok.(json.Delim); ok && d == '{' {
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
			if k == "memories" {
				if tok, err = dec.Token(); err != nil {
					return nil, fmt.Errorf("%w: %v", ErrFormat, err)
				}
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: a JSON object without a \"memories\" list; give an array of memories", ErrFormat)
		}
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%w: JSON that is not a list of memories; give an array of strings or {\"text\": …} objects", ErrFormat)
	}
	var items []Item
	lines := lineCounter{text: text, line: 1}
	for dec.More() {
		at := lines.at(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &LineError{at, fmt.Errorf("%w: %v", ErrFormat, err)}
		}
		it, err := decodeOne(raw, at)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// lineCounter finds the lines of increasing offsets of a text, counting
// each newline once: counting from the start for every record would be
// quadratic in the number of records.
type lineCounter struct {
	text string
	off  int // newlines before off are counted
	line int
}

// at is the 1-based line of the first non-space byte at or after off.
func (c *lineCounter) at(off int64) int {
	i := int(off)
	for i < len(c.text) && strings.ContainsRune(" \t\r\n,", rune(c.text[i])) {
		i++
	}
	i = min(i, len(c.text))
	if i > c.off {
		c.line += strings.Count(c.text[c.off:i], "\n")
		c.off = i
	}
	return c.line
}

// parseJSONL reads one memory per line; blank lines are skipped.
func parseJSONL(text string) ([]Item, error) {
	var items []Item
	for i, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		it, err := decodeOne(json.RawMessage(l), i+1)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}
