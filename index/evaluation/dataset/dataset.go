package dataset

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// Query kinds (shapes), in report order.
var Kinds = []string{"developer", "task", "error", "paraphrase", "keyword", "offtopic", "superseded"}

// Memory is one line of memories.jsonl.
type Memory struct {
	Key        string   `json:"key"`
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Tags       []string `json:"tags"`
	Paths      []string `json:"paths"`
	Source     string   `json:"source"`
	Supersedes string   `json:"supersedes"`
	// Keys are the memory's retrieval keys, as its writer would give them.
	Keys []string `json:"keys,omitempty"`
	// AgeDays is how long before the eval's now the memory was written.
	AgeDays int `json:"age_days"`
	// At, when set, is when the memory was written (a set of the shared
	// format dates its memories), instead of AgeDays.
	At time.Time `json:"-"`
}

// Query is one line of queries.jsonl.
type Query struct {
	Query  string   `json:"query"`
	Kind   string   `json:"kind"`
	Expect []string `json:"expect"`
	Forbid []string `json:"forbid"`
	Split  string   `json:"split"`
	// Near marks an off-topic query that shares a rare word with the store.
	Near bool `json:"near,omitempty"`
	// Also are other phrasings of the same need, as an agent sends them
	// through MCP (used when the eval runs with its phrasings, evaluation.Options.Phrasings).
	Also []string `json:"also,omitempty"`
	// ID and At: a shared set's query id and date (when it is asked).
	ID string    `json:"-"`
	At time.Time `json:"-"`
}

// Dataset is one project of the eval.
type Dataset struct {
	Name string
	// Source names the process that wrote the dataset (LoadSets).
	Source   string
	Memories []Memory
	Queries  []Query
}

// Suite is the whole eval: its projects and the unrelated memories.
type Suite struct {
	Projects    []*Dataset
	Distractors []Memory
}

// distractorsDir is the suite directory holding only unrelated memories.
const distractorsDir = "distractors"

// LoadSuite reads every project directory of dir (one holding
// memories.jsonl and queries.jsonl) and the unrelated memories of
// dir/distractors.
func LoadSuite(dir string) (*Suite, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", memerr.ErrInvalid, err)
	}
	s := &Suite{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if e.Name() == distractorsDir {
			if s.Distractors, err = readMemories(sub); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(sub, "queries.jsonl")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ds, err := LoadDataset(sub)
		if err != nil {
			return nil, err
		}
		s.Projects = append(s.Projects, ds)
	}
	if len(s.Projects) == 0 {
		return nil, fmt.Errorf("%w: %s holds no project (a directory with memories.jsonl and queries.jsonl)", memerr.ErrInvalid, dir)
	}
	return s, nil
}

// LoadDataset reads memories.jsonl and queries.jsonl from dir.
func LoadDataset(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(dir)}
	var err error
	if ds.Memories, err = readMemories(dir); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q Query
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		if !slices.Contains(Kinds, q.Kind) {
			return fmt.Errorf("unknown kind %q; use one of %s", q.Kind, strings.Join(Kinds, ", "))
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, m := range ds.Memories {
		keys[m.Key] = true
	}
	for _, q := range ds.Queries {
		for _, k := range append(slices.Clone(q.Expect), q.Forbid...) {
			if !keys[k] {
				return nil, fmt.Errorf("%w: %s: query %q names unknown memory %s", memerr.ErrInvalid, ds.Name, q.Query, k)
			}
		}
	}
	return ds, nil
}

func readMemories(dir string) ([]Memory, error) {
	var out []Memory
	err := readJSONL(filepath.Join(dir, "memories.jsonl"), func(b []byte) error {
		var m Memory
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", memerr.ErrInvalid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := []byte(strings.TrimSpace(sc.Text()))
		if len(b) == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%w: %s line %d: %v", memerr.ErrInvalid, filepath.Base(path), line, err)
		}
	}
	return sc.Err()
}

// ID is the deterministic memory id of a dataset key, so runs are repeatable.
func ID(key string) string {
	sum := sha256.Sum256([]byte("git-mem eval " + key))
	return hex.EncodeToString(sum[:gitstore.IDHexLen/2])
}

// Epoch is the eval's now: a memory of age_days 0 is written then.
var Epoch = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// loadMemories writes memories into a store in one commit, each dated
// age_days before Epoch: replaced memories are closed when their
// replacement was written and linked to it.
func loadMemories(ctx context.Context, st *gitstore.Store, mems []Memory) error {
	if len(mems) == 0 {
		return nil
	}
	_, err := st.Update(ctx, gitstore.Writer{Agent: "eval"}, func(tx *gitstore.Tx) error {
		docs := map[string]*gitstore.Memory{}
		for _, e := range mems {
			if _, dup := docs[e.Key]; dup {
				return fmt.Errorf("%w: memory key %s appears twice", memerr.ErrInvalid, e.Key)
			}
			n := gitstore.NewMemory{Type: e.Type, Text: e.Text, Tags: e.Tags, Paths: e.Paths, Keys: e.Keys, Source: e.Source, AllowSecret: true}
			if err := n.Validate(); err != nil {
				return fmt.Errorf("memory %s: %w", e.Key, err)
			}
			at := Epoch.AddDate(0, 0, -e.AgeDays)
			if !e.At.IsZero() {
				at = e.At
			}
			docs[e.Key] = &gitstore.Memory{
				Schema: gitstore.SchemaVersion, ID: ID(e.Key), Type: n.Type, Text: n.Text,
				Tags: n.Tags, Paths: n.Paths, Keys: n.Keys, Source: n.Source, Trust: gitstore.StartingTrust(n.Source, false),
				Agent: "eval", Author: "eval <eval@localhost>", Created: at, Updated: at, ValidFrom: at,
			}
		}
		for _, e := range mems {
			if e.Supersedes == "" {
				continue
			}
			old, ok := docs[e.Supersedes]
			if !ok {
				return fmt.Errorf("%w: memory %s supersedes unknown %s", memerr.ErrInvalid, e.Key, e.Supersedes)
			}
			end := docs[e.Key].Created
			old.ValidTo = &end
			old.SupersededBy = ID(e.Key)
			old.Events = append(old.Events, gitstore.Event{Op: gitstore.EventSupersede, At: end, Agent: "eval"})
			docs[e.Key].Supersedes = old.ID
		}
		for _, m := range docs {
			tx.Put(m)
		}
		tx.Describe("add", fmt.Sprintf("eval dataset: %d memories", len(docs)), ID(mems[0].Key))
		return nil
	})
	return err
}

// Load writes the dataset's memories into a store in one commit.
func (ds *Dataset) Load(ctx context.Context, st *gitstore.Store) error {
	return loadMemories(ctx, st, ds.Memories)
}

// Stored is a dataset written into one store of its own.
type Stored struct {
	Set *gitstore.Set
	// KeyOf maps a memory id to its dataset key.
	KeyOf map[string]string
	// Now is when an undated query is asked: an hour after Epoch, or a
	// day after the newest dated memory.
	Now time.Time
}

// WriteOptions configure Write.
type WriteOptions struct {
	// Repo, when set, holds the store (an empty repository); otherwise
	// the store is in memory.
	Repo *gitstore.Repo
	// Extra memories are written with the dataset's (the unrelated ones).
	Extra []Memory
	// Undated writes every memory at Epoch, ignoring age_days.
	Undated bool
	// NoKeys writes the memories without their retrieval keys.
	NoKeys bool
}

// Write writes the dataset's memories (and o.Extra) into the project store
// of a fresh set whose clock stands at Epoch.
func Write(ctx context.Context, ds *Dataset, o WriteOptions) (*Stored, error) {
	repo := o.Repo
	if repo == nil {
		repo = gitstore.NewMemoryRepo()
	}
	repo.Now = func() time.Time { return Epoch }
	st := &Stored{Set: gitstore.NewSet(repo), KeyOf: map[string]string{}, Now: Epoch.Add(time.Hour)}
	var newest time.Time
	for _, m := range ds.Memories {
		if m.At.After(newest) {
			newest = m.At
		}
	}
	if !newest.IsZero() {
		st.Now = newest.AddDate(0, 0, 1)
	}
	store, err := st.Set.Writable(gitstore.ScopeProject)
	if err != nil {
		return nil, err
	}
	mems := ds.Memories
	if len(o.Extra) > 0 {
		mems = append(slices.Clone(mems), o.Extra...)
	}
	if o.Undated || o.NoKeys {
		mems = slices.Clone(mems)
		for i := range mems {
			if o.Undated {
				mems[i].AgeDays = 0
			}
			if o.NoKeys {
				mems[i].Keys = nil
			}
		}
	}
	if err := loadMemories(ctx, store, mems); err != nil {
		return nil, err
	}
	for _, m := range mems {
		st.KeyOf[ID(m.Key)] = m.Key
	}
	return st, nil
}

// QueryNow is when q is asked: its date, or the store's Now.
func (st *Stored) QueryNow(q Query) time.Time {
	if !q.At.IsZero() {
		return q.At
	}
	return st.Now
}

// ScratchRepo makes an empty bare repository in dir (objects, refs, HEAD):
// enough for the store, without the git executable.
func ScratchRepo(dir string) (*gitstore.Repo, error) {
	gd := filepath.Join(dir, "eval.git")
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(gd, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return nil, err
	}
	return gitstore.Open(gd)
}
