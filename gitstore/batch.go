package gitstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/memerr"
)

// Origin is the file an imported memory came from: its path (relative to the
// repository when the file was inside it) and the line its text starts on.
// It is an optional field of the document (schema 1 readers that predate it
// ignore it).
type Origin struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

// check validates an origin; nil is valid.
func (o *Origin) check() error {
	if o == nil {
		return nil
	}
	if err := checkPath(o.File); err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	if o.Line < 0 {
		return fmt.Errorf("%w: origin line %d is negative", memerr.ErrInvalid, o.Line)
	}
	return nil
}

// importedFrom starts the reason of a reinforcement by an import.
const importedFrom = "imported from "

// ImportedFrom reports whether the memory came from the file, or was
// reinforced by an import of it: importing the file again adds nothing.
func (m *Memory) ImportedFrom(file string) bool {
	if m.Origin != nil && m.Origin.File == file {
		return true
	}
	for _, e := range m.Events {
		if e.Op == EventReinforce && strings.HasPrefix(e.Reason, importedFrom+file+":") {
			return true
		}
	}
	return false
}

// values lists the origin's text for the secret rules.
func (o *Origin) values() []string {
	if o == nil {
		return nil
	}
	return []string{o.File}
}

// BatchEntry is one change of a batch write (Store.WriteBatch): a new
// memory, a memory restored from an export, or a reinforcement.
type BatchEntry struct {
	// ID is the id a new memory gets (empty: a fresh one), so that a later
	// entry of the same batch can reinforce it. Ignored for a restore.
	ID string
	// New is the memory to add, validated and scanned for secrets as Add
	// does. For a restore it carries the content (type, text, tags, paths,
	// keys, source, tentative, pinned); for a reinforcement, what to add
	// should the memory be gone.
	New NewMemory
	// Restore, when set, is a memory brought back from an export: it is
	// written under its own id with its dates, writer, anchor, links, events
	// and reinforcements; trust starts from its source as in Add. An id the
	// store already holds is left alone.
	Restore *Memory
	// Reinforce, when set, is the full id of a memory (in the store, or
	// added earlier in the batch) that makes the same claim: it is
	// reinforced instead of adding New.
	Reinforce string
}

// BatchResult is what WriteBatch did.
type BatchResult struct {
	// Memories holds, for each entry, the memory written or reinforced; nil
	// for a restore whose id the store already held.
	Memories []*Memory
	// Reinforced reports, for each entry, that it reinforced a memory.
	Reinforced []bool
	// Commit is the new commit of the ref ("" when nothing changed).
	Commit string
}

// WriteBatch writes many changes in one commit whose Memory-Op is op and
// whose subject is subject: the cost of an import of thousands of memories is
// one commit and one ref update, not one each. Every entry is validated
// first; the first invalid entry fails the whole batch and nothing is
// written (callers that refuse per item validate each with
// NewMemory.Validate before building the batch).
func (s *Store) WriteBatch(ctx context.Context, w Writer, op, subject string, entries []BatchEntry) (*BatchResult, error) {
	for i := range entries {
		e := &entries[i]
		if err := e.New.Validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if e.Restore != nil {
			if !ValidID(e.Restore.ID) {
				return nil, fmt.Errorf("%w: entry %d: memory id %s is malformed", memerr.ErrInvalid, i+1, quoteShort(e.Restore.ID))
			}
			if !e.New.AllowSecret {
				var reasons []string
				for _, ev := range e.Restore.Events {
					reasons = append(reasons, ev.Reason)
				}
				if err := CheckSecrets(strings.Join(reasons, "\n")); err != nil {
					return nil, fmt.Errorf("entry %d: event reasons: %w", i+1, err)
				}
			}
		}
		if e.ID == "" && e.Restore == nil && e.Reinforce == "" {
			e.ID = NewID()
		}
		if e.ID != "" && !ValidID(e.ID) {
			return nil, fmt.Errorf("%w: entry %d: memory id %s is malformed", memerr.ErrInvalid, i+1, quoteShort(e.ID))
		}
	}
	author := s.Repo.Author()
	res := &BatchResult{}
	tip, err := s.Update(ctx, w, func(tx *Tx) error {
		res.Memories = make([]*Memory, len(entries))
		res.Reinforced = make([]bool, len(entries))
		var ids []string
		touched := map[string]bool{}
		for i, e := range entries {
			now := tx.Now()
			var m *Memory
			switch {
			case e.Restore != nil:
				if _, err := tx.get(e.Restore.ID); err == nil {
					continue
				}
				c := *e.Restore
				n := e.New
				c.Schema, c.Type, c.Text, c.Tags, c.Paths, c.Keys = SchemaVersion, n.Type, n.Text, n.Tags, n.Paths, n.Keys
				c.Source, c.Tentative, c.Pinned = n.Source, n.Tentative, n.Pinned
				c.Trust = StartingTrust(n.Source, n.Tentative)
				if c.Origin == nil {
					c.Origin = n.Origin
				}
				if c.Author == "" {
					c.Author = author
				}
				if c.Created.IsZero() {
					c.Created = now
				}
				if c.Updated.IsZero() {
					c.Updated = c.Created
				}
				if c.ValidFrom.IsZero() {
					c.ValidFrom = c.Created
				}
				m = &c
			case e.Reinforce != "":
				old, err := tx.get(e.Reinforce)
				if err == nil {
					reason := ""
					if o := e.New.Origin; o != nil {
						reason = fmt.Sprintf("%s%s:%d", importedFrom, o.File, o.Line)
					}
					old.Events = append(old.Events, Event{Op: EventReinforce, At: now, Agent: w.Agent, Session: w.Session, Author: author, Reason: reason})
					old.Reinforced = appendReinforcement(old.Reinforced, now)
					old.Updated = now
					m = old
					res.Reinforced[i] = true
					break
				}
				e.ID = NewID() // the memory is gone: add this one instead
				fallthrough
			default:
				n := e.New
				m = &Memory{
					Schema: SchemaVersion, ID: e.ID, Type: n.Type, Text: n.Text, Tags: n.Tags, Paths: n.Paths, Keys: n.Keys,
					Source: n.Source, Tentative: n.Tentative, Pinned: n.Pinned,
					Trust: StartingTrust(n.Source, n.Tentative),
					Agent: w.Agent, Subagent: w.Subagent, Session: w.Session, Author: author, Anchor: n.Anchor,
					Created: now, Updated: now, ValidFrom: now, ValidTo: n.ValidTo, Origin: n.Origin,
				}
			}
			tx.Put(m)
			c := *m
			res.Memories[i] = &c
			if !touched[m.ID] {
				touched[m.ID] = true
				ids = append(ids, m.ID)
			}
		}
		tx.Describe(op, subject, ids...)
		tx.batch = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, m := range res.Memories {
		if m != nil {
			m.scope = s.Scope
			res.Commit = tip.String()
		}
	}
	return res, nil
}
