package gitstore

import (
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/secret"
)

// Validate checks and normalizes the input; nothing is written when it fails.
//
// Every field is scanned for credentials as given, before it is normalized:
// tags are lower-cased and paths cleaned afterwards, and either can hide a
// credential from the rules (an AWS key id lower-cased no longer has its
// shape; path.Clean turns the "//" of a URL into "/").
func (n *NewMemory) Validate() error {
	if n.Type == "" {
		n.Type = TypeFact
	}
	n.Type = strings.ToLower(n.Type)
	if err := ValidateType(n.Type); err != nil {
		return err
	}
	if n.Source == "" {
		n.Source = SourceUser
	}
	n.Source = strings.ToLower(n.Source)
	if err := validateSource(n.Source); err != nil {
		return err
	}
	if err := validateText(n.Text); err != nil {
		return err
	}
	if !n.AllowSecret {
		if err := CheckSecrets(n.Text); err != nil {
			return err
		}
		if err := n.checkRawSecrets(); err != nil {
			return err
		}
	}
	var err error
	if n.Tags, err = normalizeTags(n.Tags); err != nil {
		return err
	}
	if n.Paths, err = normalizePaths(n.Paths); err != nil {
		return err
	}
	if n.Keys, err = normalizeKeys(n.Keys); err != nil {
		return err
	}
	if err := n.Origin.check(); err != nil {
		return err
	}
	if !n.AllowSecret {
		// and again as they will be stored, should a normalization ever
		// assemble a credential the raw values did not hold
		for _, f := range n.secretFields() {
			if err := CheckSecrets(strings.Join(f.values, "\n")); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	return nil
}

// Check refuses a memory that a reader would refuse (its id, or a field
// beyond its limits) or that holds a secret in any field that reaches git,
// with no exception for a harmless example: what may be written to another
// store, whose readers are other people.
func (m *Memory) Check() error {
	if m == nil || !ValidID(m.ID) {
		return fmt.Errorf("%w: not a memory", memerr.ErrInvalid)
	}
	if err := m.check(); err != nil {
		return err
	}
	if err := CheckSecrets(m.Text); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	n := NewMemory{Keys: m.Keys, Paths: m.Paths, Tags: m.Tags, Origin: m.Origin, Anchor: m.Anchor}
	if err := n.checkRawSecrets(); err != nil {
		return err
	}
	return CheckRestoreSecrets(m)
}

// secretField is one field of a memory, by the name an error gives it.
type secretField struct {
	name   string
	values []string
}

// secretFields lists the fields besides the text that reach git.
func (n *NewMemory) secretFields() []secretField {
	var branch []string
	if n.Anchor != nil && n.Anchor.Branch != "" {
		branch = []string{n.Anchor.Branch}
	}
	return []secretField{{"keys", n.Keys}, {"paths", n.Paths}, {"tags", n.Tags}, {"origin", n.Origin.values()}, {"anchor branch", branch}}
}

// checkRawSecrets scans each field as the caller gave it. Each value is
// scanned on its own, so that a finding's offset is the value's; paths and
// tags also may not be a URL that carries a password, whatever the password
// looks like: a path names a file, and a tag is a label.
func (n *NewMemory) checkRawSecrets() error {
	for _, f := range n.secretFields() {
		for _, v := range f.values {
			if err := CheckSecrets(v); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			if f.name != "paths" && f.name != "tags" && f.name != "origin" {
				continue
			}
			if fd, ok := secret.URLWithPassword(v); ok {
				return fmt.Errorf("%s: %w", f.name, &memerr.SecretError{Findings: []secret.Finding{fd}})
			}
		}
	}
	return nil
}

// CheckRestoreSecrets scans the fields of a memory restored from an export
// that a write keeps as they are (writer, session, author, anchor branch,
// origin file, events' writers and reasons); the content fields go through
// NewMemory.Validate. A nil memory passes.
func CheckRestoreSecrets(m *Memory) error {
	if m == nil {
		return nil
	}
	fields := []secretField{
		{"agent", []string{m.Agent}}, {"subagent", []string{m.Subagent}}, {"session", []string{m.Session}},
		{"author", []string{m.Author}},
	}
	if m.Anchor != nil {
		fields = append(fields, secretField{"anchor branch", []string{m.Anchor.Branch}})
	}
	if m.Origin != nil {
		fields = append(fields, secretField{"origin", []string{m.Origin.File}})
	}
	for i, e := range m.Events {
		fields = append(fields, secretField{fmt.Sprintf("event %d", i+1), []string{e.Agent, e.Session, e.Author, e.Reason}})
	}
	for _, f := range fields {
		for _, v := range f.values {
			if v == "" {
				continue
			}
			if err := CheckSecrets(v); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			if fd, ok := secret.URLWithPassword(v); ok {
				return fmt.Errorf("%s: %w", f.name, &memerr.SecretError{Findings: []secret.Finding{fd}})
			}
		}
	}
	return nil
}

// checkDocumentSecrets scans a stored memory document with the rules its
// write went through: the text, the keys, paths, tags, origin and anchor
// branch as NewMemory.Validate scans them, and the fields a restore keeps
// as CheckRestoreSecrets does. A server's check of a push (Verify) refuses
// what a write would have refused, whoever wrote the document.
func checkDocumentSecrets(m *Memory) error {
	if err := CheckSecrets(m.Text); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	n := &NewMemory{Text: m.Text, Tags: m.Tags, Paths: m.Paths, Keys: m.Keys, Anchor: m.Anchor, Origin: m.Origin}
	if err := n.checkRawSecrets(); err != nil {
		return err
	}
	for _, f := range n.secretFields() {
		if err := CheckSecrets(strings.Join(f.values, "\n")); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return CheckRestoreSecrets(m)
}
