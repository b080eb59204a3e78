package memfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// record is a memory in JSON: a simple {text, type, tags} object, or the
// whole memory as git mem export and --json write it (gitstore.View, the
// one outside shape of a memory; its display fields are ignored).
type record gitstore.View

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

// decodeOne reads one memory: a string or an object.
func decodeOne(raw json.RawMessage, line int) (Item, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Item{}, err
		}
		return Item{Text: s, Type: InferType(s, ""), Line: line}, nil
	}
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		return Item{}, fmt.Errorf("%w: line %d: not a memory (a string or an object with text): %v", ErrFormat, line, err)
	}
	return r.item(line), nil
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
	for dec.More() {
		at := lineAt(text, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, at, err)
		}
		it, err := decodeOne(raw, at)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// lineAt is the 1-based line of the first non-space byte at or after off.
func lineAt(text string, off int64) int {
	i := int(off)
	for i < len(text) && strings.ContainsRune(" \t\r\n,", rune(text[i])) {
		i++
	}
	return strings.Count(text[:min(i, len(text))], "\n") + 1
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
