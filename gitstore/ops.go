package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-mem/git-mem/memerr"
)

// Ops recorded in the Memory-Op trailer. A confirmation, a dispute and a
// reinforcement record their event's name (EventConfirm, EventDispute,
// EventReinforce).
const (
	OpAdd       = "add"
	opRevise    = "revise"
	opSupersede = "supersede"
	opForget    = "forget"
	opMerge     = "merge"
	opPurge     = "purge"
	OpImport    = "import"
)

// NewMemory is what a caller gives to add a memory.
type NewMemory struct {
	Type  string
	Text  string
	Tags  []string
	Paths []string
	// Keys are a few other words and short questions a later reader might
	// use to find the memory (indexed below its text).
	Keys      []string
	Source    string
	Tentative bool
	Pinned    bool
	// Supersedes is the full id of a memory in the same store that this one replaces.
	Supersedes string
	// Anchor is the code state the memory was written against (usually Repo.Head()).
	Anchor *Anchor
	// ValidTo, when set, is when the fact stops being true (an expiry).
	ValidTo *time.Time
	// AllowSecret stores the text even when it looks like it holds a credential.
	AllowSecret bool
	// Origin is the file the memory was imported from (git mem import).
	Origin *Origin
}

// Add stores a new memory in one commit. With Supersedes, the old memory's
// valid time is closed and both are linked in the same commit.
func (s *Store) Add(ctx context.Context, w Writer, n NewMemory) (*Memory, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	id := NewID()
	author := s.Repo.Author()
	var added *Memory
	_, err := s.Update(ctx, w, func(tx *Tx) error {
		now := tx.Now()
		m := &Memory{
			Schema: SchemaVersion, ID: id, Type: n.Type, Text: n.Text, Tags: n.Tags, Paths: n.Paths, Keys: n.Keys,
			Source: n.Source, Tentative: n.Tentative, Pinned: n.Pinned,
			Trust: StartingTrust(n.Source, n.Tentative),
			Agent: w.Agent, Subagent: w.Subagent, Session: w.Session, Author: author, Anchor: n.Anchor,
			Created: now, Updated: now, ValidFrom: now, ValidTo: n.ValidTo, Origin: n.Origin,
		}
		tx.Describe(OpAdd, m.Type+": "+m.Text, id)
		if n.Supersedes != "" {
			old, err := tx.get(n.Supersedes)
			if err != nil {
				return err
			}
			if old.SupersededBy != "" {
				return fmt.Errorf("%w: %s was already superseded by %s; supersede that one instead", memerr.ErrRetired, Clip(old.ID, MinShownPrefix), Clip(old.SupersededBy, MinShownPrefix))
			}
			end := now
			old.ValidTo = &end
			old.SupersededBy = id
			old.Updated = now
			old.Events = append(old.Events, Event{Op: EventSupersede, At: now, Agent: w.Agent, Author: author, Reason: "superseded by " + id})
			m.Supersedes = old.ID
			tx.Put(old)
			tx.Describe(opSupersede, m.Type+": "+m.Text, id, old.ID)
		}
		tx.Put(m)
		added = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	added.scope = s.Scope
	return added, nil
}

// WriteOption adjusts a text write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	allowSecret bool
	keys        []string
	setKeys     bool
	ifVersion   string
}

func writeOptionsOf(opts []WriteOption) writeOptions {
	var o writeOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// IfVersion makes a change of one memory (revise, confirm, dispute,
// forget) happen only while the memory is still at version v
// (Memory.Version), checked on the commit the change lands on: what a
// person read is never written over by a change made since. An empty v
// asks for nothing, so a surface passes what it was given.
func IfVersion(v string) WriteOption { return func(o *writeOptions) { o.ifVersion = v } }

// checkVersion refuses m when the options ask for another version.
func (o *writeOptions) checkVersion(m *Memory) error {
	if o.ifVersion != "" && (len(o.ifVersion) != versionHexLen || !isHex(o.ifVersion)) {
		return &memerr.InvalidInputError{Field: "version", Value: Clip(o.ifVersion, 40), Reason: fmt.Sprintf("%s is not a memory's version (%d hex digits)", quoteShort(o.ifVersion), versionHexLen)}
	}
	if o.ifVersion != "" && m.Version() != o.ifVersion {
		return fmt.Errorf("%w: %s is at another version now", memerr.ErrChanged, Clip(m.ID, MinShownPrefix))
	}
	return nil
}

// AllowSecret stores the text even when it looks like it holds a credential.
func AllowSecret() WriteOption { return func(o *writeOptions) { o.allowSecret = true } }

// WithKeys makes a revision replace the memory's retrieval keys (none:
// remove them).
func WithKeys(keys []string) WriteOption {
	return func(o *writeOptions) { o.keys, o.setKeys = keys, true }
}

// Revise replaces the text of a memory (and, WithKeys, its retrieval keys;
// text may then be empty to keep it); its history keeps the old version.
func (s *Store) Revise(ctx context.Context, w Writer, id, text string, opts ...WriteOption) (*Memory, error) {
	o := writeOptionsOf(opts)
	if text != "" || !o.setKeys {
		if err := validateText(text); err != nil {
			return nil, err
		}
	}
	keys, err := normalizeKeys(o.keys)
	if err != nil {
		return nil, err
	}
	if !o.allowSecret {
		if err := CheckSecrets(text + "\n" + strings.Join(keys, "\n")); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, w, id, &o, func(tx *Tx, m *Memory) error {
		newText := text
		if newText == "" {
			newText = m.Text
		}
		newKeys := m.Keys
		if o.setKeys {
			newKeys = keys
		}
		if m.Text == newText && slices.Equal(m.Keys, newKeys) {
			return fmt.Errorf("%w: the new text and keys are the same as the current ones; nothing to revise", memerr.ErrInvalid)
		}
		m.Text, m.Keys = newText, newKeys
		tx.Describe(opRevise, m.Type+": "+newText, m.ID)
		return nil
	})
}

// Confirm records that the memory was checked and found true.
func (s *Store) Confirm(ctx context.Context, w Writer, id string, opts ...WriteOption) (*Memory, error) {
	return s.addEvent(ctx, w, id, EventConfirm, "", opts)
}

// Dispute records that the memory was found doubtful or wrong, and why.
func (s *Store) Dispute(ctx context.Context, w Writer, id, reason string, opts ...WriteOption) (*Memory, error) {
	return s.addEvent(ctx, w, id, EventDispute, reason, opts)
}

// Reinforce records that the same fact was learned again.
func (s *Store) Reinforce(ctx context.Context, w Writer, id string) (*Memory, error) {
	return s.addEvent(ctx, w, id, EventReinforce, "", nil)
}

func (s *Store) addEvent(ctx context.Context, w Writer, id, op, reason string, opts []WriteOption) (*Memory, error) {
	o := writeOptionsOf(opts)
	if strings.TrimSpace(reason) != "" {
		if err := validateText(reason); err != nil {
			return nil, fmt.Errorf("reason: %w", err)
		}
		if err := CheckSecrets(reason); err != nil {
			return nil, fmt.Errorf("reason: %w", err)
		}
	}
	author := s.Repo.Author()
	return s.change(ctx, w, id, &o, func(tx *Tx, m *Memory) error {
		now := tx.Now()
		m.Events = append(m.Events, Event{Op: op, At: now, Agent: w.Agent, Session: w.Session, Author: author, Reason: oneLine(reason)})
		if op == EventReinforce {
			m.Reinforced = appendReinforcement(m.Reinforced, now)
		}
		subject := m.Type + ": " + m.Text
		if reason != "" {
			subject = reason
		}
		tx.Describe(op, subject, m.ID)
		return nil
	})
}

// appendReinforcement keeps at most one reinforcement date a day and the last 10.
func appendReinforcement(dates []time.Time, now time.Time) []time.Time {
	if n := len(dates); n > 0 && dates[n-1].UTC().Format(time.DateOnly) == now.UTC().Format(time.DateOnly) {
		return dates
	}
	dates = append(dates, now)
	if len(dates) > 10 {
		dates = dates[len(dates)-10:]
	}
	return dates
}

// change applies fn to the current version of one memory (the version o
// asks for, if any) and commits it.
func (s *Store) change(ctx context.Context, w Writer, id string, o *writeOptions, fn func(tx *Tx, m *Memory) error) (*Memory, error) {
	var out *Memory
	_, err := s.Update(ctx, w, func(tx *Tx) error {
		m, err := tx.get(id)
		if err != nil {
			return err
		}
		if err := o.checkVersion(m); err != nil {
			return err
		}
		if err := fn(tx, m); err != nil {
			return err
		}
		m.Updated = tx.Now()
		tx.Put(m)
		out = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.scope = s.Scope
	return out, nil
}

// Forget removes a memory from the current tree; its history keeps it. A
// memory whose document is invalid (see validateDocument) is removed too:
// the returned memory then holds only its id.
func (s *Store) Forget(ctx context.Context, w Writer, id string, opts ...WriteOption) (*Memory, error) {
	o := writeOptionsOf(opts)
	var out *Memory
	_, err := s.Update(ctx, w, func(tx *Tx) error {
		m, err := tx.get(id)
		var de *DocumentError
		if errors.As(err, &de) {
			m, err = &Memory{ID: id}, nil
			tx.Describe(opForget, "invalid document", id)
		} else if err == nil {
			err = o.checkVersion(m)
			tx.Describe(opForget, m.Type+": "+m.Text, id)
		}
		if err != nil {
			return err
		}
		tx.delete(id)
		out = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.scope = s.Scope
	return out, nil
}
