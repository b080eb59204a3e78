package dataset

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// setFile is a set as written on disk.
type setFile struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Memories    []struct {
		ID    string   `json:"id"`
		Text  string   `json:"text"`
		Type  string   `json:"type"`
		Date  string   `json:"date"`
		Paths []string `json:"paths"`
	} `json:"memories"`
	Queries []struct {
		ID       string   `json:"id"`
		Text     string   `json:"text"`
		Kind     string   `json:"kind"`
		Relevant []string `json:"relevant"`
		Paths    []string `json:"paths"`
		Date     string   `json:"date"`
	} `json:"queries"`
}

// IsSuite tells whether dir holds the project's own kind of eval (a
// directory per project with queries.jsonl) rather than recall sets.
func IsSuite(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true // LoadSuite says what is wrong
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if e.Name() == distractorsDir {
			return true
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "queries.jsonl")); err == nil {
			return true
		}
	}
	return false
}

// LoadSets reads every set (*.json) under root, each labelled with its
// source: the first directory of its path under root, or its own name when
// it lies in root itself. README files and other non-set files are skipped
// only when they are not JSON; a JSON file that is not a set is an error.
func LoadSets(root string) ([]*Dataset, error) {
	var out []*Dataset
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		source := strings.TrimSuffix(d.Name(), ".json")
		if dir, _, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok {
			source = dir
		}
		ds, err := LoadSet(path, source)
		if err != nil {
			return err
		}
		out = append(out, ds)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", memerr.ErrInvalid, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s holds no recall set (*.json) and no eval project (a directory with memories.jsonl and queries.jsonl)", memerr.ErrInvalid, root)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// LoadSet reads one set of the shared format. Its queries are split in
// two halves, "tune" and "test", by a hash of the set's name and the
// query's id, so that the split never depends on the order of the file.
func LoadSet(path, source string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", memerr.ErrInvalid, err)
	}
	var f setFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", memerr.ErrInvalid, path, err)
	}
	name := f.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	ds := &Dataset{Name: name, Source: source}
	ids := map[string]bool{}
	// a set gives memories in the order they were written, and often one
	// time to a whole conversation: those are a second apart, as a
	// writer's would be, so that the order survives in the store. A date
	// without a time of day says only which day: its memories keep it, and
	// no order within the day is made up.
	sameTime := map[time.Time]int{}
	for i, m := range f.Memories {
		if m.ID == "" || ids[m.ID] {
			return nil, fmt.Errorf("%w: %s: memory %d has no id or a repeated one", memerr.ErrInvalid, path, i)
		}
		ids[m.ID] = true
		at, err := parseSetDate(m.Date)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: memory %s: %v", memerr.ErrInvalid, path, m.ID, err)
		}
		if strings.Contains(m.Date, "T") {
			n := sameTime[at]
			sameTime[at] = n + 1
			at = at.Add(time.Duration(n) * time.Second)
		}
		typ := m.Type
		if typ == "" {
			typ = "fact"
		}
		ds.Memories = append(ds.Memories, Memory{Key: m.ID, Type: typ, Text: m.Text, Paths: m.Paths, Source: "inferred", At: at})
	}
	for _, q := range f.Queries {
		for _, r := range q.Relevant {
			if !ids[r] {
				return nil, fmt.Errorf("%w: %s: query %s names unknown memory %s", memerr.ErrInvalid, path, q.ID, r)
			}
		}
		at, err := parseSetDate(q.Date)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: query %s: %v", memerr.ErrInvalid, path, q.ID, err)
		}
		ds.Queries = append(ds.Queries, Query{ID: q.ID, Query: q.Text, Kind: q.Kind, Expect: q.Relevant, Split: setSplit(name, q.ID), At: at})
	}
	return ds, nil
}

// setSplit puts half of a set's queries in "tune" and half in "test".
func setSplit(set, id string) string {
	sum := sha256.Sum256([]byte(set + "\x00" + id))
	if sum[0]&1 == 0 {
		return "tune"
	}
	return "test"
}

func parseSetDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is neither RFC 3339 nor YYYY-MM-DD", s)
}

// Answerable tells whether a kind of query of the shared sets counts in
// "answerable": every kind with relevant memories but LoCoMo's
// adversarial questions, which pin an event on the wrong speaker.
func Answerable(kind string) bool {
	return kind != "offtopic" && kind != "adversarial"
}
