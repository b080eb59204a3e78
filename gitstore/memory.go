package gitstore

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-mem/git-mem/secret"
)

// SchemaVersion is the version of the memory document written by this build.
const SchemaVersion = 1

// MaxTextBytes is the largest memory text accepted. A memory is one fact; longer
// notes should be split into several memories.
const MaxTextBytes = 8192

// IDHexLen is the length of a full memory id: 16 hex digits, 64 random bits.
const IDHexLen = 16

// MinPrefixLen is the shortest id prefix accepted on input; MinShownPrefix is
// the shortest prefix shown on output.
const (
	MinPrefixLen   = 4
	MinShownPrefix = 6
)

// Memory types.
const (
	TypeFact       = "fact"
	TypeDecision   = "decision"
	TypeGotcha     = "gotcha"
	TypeConvention = "convention"
	TypeCommand    = "command"
	TypePreference = "preference"
	TypeHandoff    = "handoff"
	TypeSession    = "session"
)

// Types lists every memory type, in the order help texts show them.
var Types = []string{TypeFact, TypeDecision, TypeGotcha, TypeConvention, TypeCommand, TypePreference, TypeHandoff, TypeSession}

// Sources say how a memory came to be known.
const (
	SourceUser     = "user"
	SourceVerified = "verified"
	SourceInferred = "inferred"
)

// Sources lists every accepted source.
var Sources = []string{SourceUser, SourceVerified, SourceInferred}

// Anchor is the code state a memory was written against.
type Anchor struct {
	Commit string `json:"commit,omitempty"`
	Branch string `json:"branch,omitempty"`
}

// Event is one change to a memory's standing: confirm, dispute, reinforce or supersede.
type Event struct {
	Op      string    `json:"op"`
	At      time.Time `json:"at"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	Author  string    `json:"author,omitempty"`
	Reason  string    `json:"reason,omitempty"`
}

// Memory is the document stored at memories/<id[:2]>/<id>.json. Field order is the
// canonical order of the encoded JSON; see doc.go for what each field means.
type Memory struct {
	Schema       int         `json:"schema"`
	ID           string      `json:"id"`
	Type         string      `json:"type"`
	Text         string      `json:"text"`
	Tags         []string    `json:"tags,omitempty"`
	Paths        []string    `json:"paths,omitempty"`
	Source       string      `json:"source"`
	Tentative    bool        `json:"tentative,omitempty"`
	Pinned       bool        `json:"pinned,omitempty"`
	Trust        float64     `json:"trust"`
	Agent        string      `json:"agent,omitempty"`
	Subagent     string      `json:"subagent,omitempty"`
	Session      string      `json:"session,omitempty"`
	Author       string      `json:"author,omitempty"`
	Anchor       *Anchor     `json:"anchor,omitempty"`
	Created      time.Time   `json:"created"`
	Updated      time.Time   `json:"updated"`
	ValidFrom    time.Time   `json:"valid_from"`
	ValidTo      *time.Time  `json:"valid_to,omitempty"`
	Supersedes   string      `json:"supersedes,omitempty"`
	SupersededBy string      `json:"superseded_by,omitempty"`
	Events       []Event     `json:"events,omitempty"`
	Reinforced   []time.Time `json:"reinforced,omitempty"`

	scope Scope // which store it was read from; not stored
}

// Scope is the store the memory was read from (empty for a memory not read from a store).
func (m *Memory) Scope() Scope { return m.scope }

// NewID returns a fresh random memory id.
func NewID() string {
	var b [IDHexLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("gitstore: no randomness for a memory id: %v", err))
	}
	return hex.EncodeToString(b[:])
}

// StartingTrust is the trust a new memory starts with (DESIGN §4).
func StartingTrust(source string, tentative bool) float64 {
	t := 0.5
	switch source {
	case SourceUser:
		t = 0.90
	case SourceVerified:
		t = 0.75
	}
	if tentative {
		t *= 0.6
	}
	return roundTrust(t)
}

func roundTrust(t float64) float64 {
	return float64(int(t*1000+0.5)) / 1000
}

// Current reports whether the memory is valid at t: started and not yet ended.
func (m *Memory) Current(t time.Time) bool {
	if !m.ValidFrom.IsZero() && t.Before(m.ValidFrom) {
		return false
	}
	return m.ValidTo == nil || t.Before(*m.ValidTo)
}

// Retired reports whether the memory has been superseded or has expired by t.
func (m *Memory) Retired(t time.Time) bool {
	return m.ValidTo != nil && !t.Before(*m.ValidTo)
}

// Encode returns the canonical JSON of the memory: fixed field order, UTF-8
// without HTML escaping, UTC times, and a trailing newline.
func (m *Memory) Encode() ([]byte, error) {
	c := *m
	c.Schema = SchemaVersion
	c.Created = c.Created.UTC().Truncate(time.Second)
	c.Updated = c.Updated.UTC().Truncate(time.Second)
	c.ValidFrom = c.ValidFrom.UTC().Truncate(time.Second)
	if c.ValidTo != nil {
		v := c.ValidTo.UTC().Truncate(time.Second)
		c.ValidTo = &v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeMemory parses a stored memory document.
func DecodeMemory(data []byte) (*Memory, error) {
	var m Memory
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m.Schema != SchemaVersion {
		return nil, fmt.Errorf("memory schema %d is not supported by this git-mem (schema %d): upgrade git-mem", m.Schema, SchemaVersion)
	}
	if !validID(m.ID) {
		return nil, fmt.Errorf("memory id %q is malformed", m.ID)
	}
	return &m, nil
}

func validID(id string) bool {
	if len(id) != IDHexLen {
		return false
	}
	return isHex(id)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidateText checks a memory text: not empty, not too long, valid UTF-8, no
// binary content. The text itself is stored verbatim.
func ValidateText(text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%w: the text is empty; pass the memory after --, e.g. git mem add -- 'Bookings are stored in UTC'", ErrInvalid)
	}
	if len(text) > MaxTextBytes {
		return fmt.Errorf("%w: the text is %d bytes, over the %d-byte maximum; a memory is one fact: split it into several memories", ErrInvalid, len(text), MaxTextBytes)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: the text is not valid UTF-8; re-encode it as UTF-8", ErrInvalid)
	}
	for i, r := range text {
		if r == 0 {
			return fmt.Errorf("%w: the text contains a NUL byte at byte %d; binary content cannot be stored", ErrInvalid, i)
		}
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return fmt.Errorf("%w: the text contains control character %U at byte %d; binary content cannot be stored", ErrInvalid, r, i)
		}
	}
	return nil
}

// CheckSecrets refuses text that contains credentials, naming each kind and
// byte position (never the value).
func CheckSecrets(text string) error {
	findings := secret.Scan(text)
	if len(findings) == 0 {
		return nil
	}
	names := make([]string, len(findings))
	for i, f := range findings {
		names[i] = f.String()
	}
	return fmt.Errorf("%w: %s; memory is shared through git, so never store credentials: remove it (refer to where the secret lives instead), or pass --allow-secret if the value is a harmless example", ErrSecret, strings.Join(names, ", "))
}

// ValidateType checks a memory type against Types.
func ValidateType(t string) error {
	for _, k := range Types {
		if t == k {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown type %q; use one of %s", ErrInvalid, t, strings.Join(Types, ", "))
}

// ValidateSource checks a source against Sources.
func ValidateSource(s string) error {
	for _, k := range Sources {
		if s == k {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown source %q; use one of %s", ErrInvalid, s, strings.Join(Sources, ", "))
}

// NormalizeTags lower-cases tags, drops blanks and duplicates, and rejects
// characters that would not survive a command line or a search.
func NormalizeTags(tags []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			continue
		}
		if len(t) > 64 {
			return nil, fmt.Errorf("%w: tag %q is longer than 64 characters", ErrInvalid, t)
		}
		for _, r := range t {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.:/", r)) {
				return nil, fmt.Errorf("%w: tag %q contains %q; tags use letters, digits and - _ . : /", ErrInvalid, t, r)
			}
		}
		seen[t] = true
		out = append(out, t)
	}
	return out, nil
}

// NormalizePaths turns paths into clean repository-relative forward-slash paths.
func NormalizePaths(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
		if p == "" {
			continue
		}
		if !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
			return nil, fmt.Errorf("%w: path %q is not valid UTF-8 text", ErrInvalid, p)
		}
		c := path.Clean(strings.TrimPrefix(p, "./"))
		if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
			return nil, fmt.Errorf("%w: path %q is outside the repository; give it relative to the repository root", ErrInvalid, p)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// Summary is the text cut to n runes on one line, for commit subjects and listings.
func Summary(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
