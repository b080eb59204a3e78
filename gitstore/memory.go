package gitstore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-mem/git-mem/memerr"
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
	Keys         []string    `json:"keys,omitempty"`
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
	Origin       *Origin     `json:"origin,omitempty"`

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

// StartingTrust is the trust a new memory starts with (docs/architecture.md, trust and lifecycle).
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

// Version names this version of the memory: a digest of its document, the
// same in every process that reads it ("" when it cannot be encoded). A
// change made IfVersion(v) happens only while the memory is at v.
func (m *Memory) Version() string {
	data, err := m.Encode()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:versionHexLen/2])
}

// versionHexLen is the length of a Version.
const versionHexLen = 16

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

// Limits of a memory document. Writes refuse input beyond them; a document
// read from a store or brought by a pull that breaks one is invalid: it is
// skipped by reads, not merged, and listed by git mem doctor.
const (
	// MaxTags is the most tags a memory has; maxTagBytes the longest tag.
	MaxTags     = 20
	maxTagBytes = 64
	// MaxKeys is the most retrieval keys a memory has; MaxKeyBytes the longest.
	MaxKeys     = 12
	MaxKeyBytes = 120
	// maxPaths is the most paths a memory is about; maxPathBytes the longest path.
	maxPaths     = 50
	maxPathBytes = 512
	// maxFieldBytes bounds the short text fields: agent, subagent, session,
	// author, anchor branch, and an event's op, agent, session and author.
	maxFieldBytes = 512
	// maxEvents bounds a memory's trust events; maxReinforced its
	// reinforcement dates (writes keep the last 10).
	maxEvents     = 1000
	maxReinforced = 100
	// maxDocumentBytes bounds a whole stored document; larger ones are not
	// even read.
	maxDocumentBytes = 1 << 20
)

// DecodeMemory parses a stored memory document and checks it
// (validateDocument), without comparing its id with a file name.
func DecodeMemory(data []byte) (*Memory, error) {
	return validateDocument(data, "")
}

// validateDocument parses a memory document read from a store or a remote and
// checks every field: schema 1, an id of 16 lower-case hex digits equal to
// fileID (the name of the file it was stored in; "" skips that check), known
// type and source, text, tags and paths within their limits, well-formed ids
// and commit hashes, bounded events and dates. The error wraps memerr.ErrInvalid and
// says what is wrong; it never quotes more than a short, escaped excerpt.
func validateDocument(data []byte, fileID string) (*Memory, error) {
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: the document is %d bytes, over the %d-byte maximum", memerr.ErrInvalid, len(data), maxDocumentBytes)
	}
	m, ok := decodeMemory(data)
	if !ok {
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, documentSyntaxError(data)
		}
	}
	if m.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w: memory schema %d is not supported by this git-mem (schema %d): upgrade git-mem", memerr.ErrInvalid, m.Schema, SchemaVersion)
	}
	if !ValidID(m.ID) {
		return nil, fmt.Errorf("%w: memory id %s is malformed (want %d lower-case hex digits)", memerr.ErrInvalid, quoteShort(m.ID), IDHexLen)
	}
	if fileID != "" && m.ID != fileID {
		return nil, fmt.Errorf("%w: its id %s differs from its file name %s", memerr.ErrInvalid, m.ID, blobName(fileID))
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// documentSyntaxError says why data, which json.Unmarshal refused, is no
// memory document: a decoder tells bad JSON from data after the document.
func documentSyntaxError(data []byte) error {
	var m Memory
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%w: not a JSON memory document: %v", memerr.ErrInvalid, err)
	}
	return fmt.Errorf("%w: data after the JSON document", memerr.ErrInvalid)
}

// check validates every field but schema and id.
func (m *Memory) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{memerr.ErrInvalid}, args...)...)
	}
	if err := ValidateType(m.Type); err != nil {
		return bad("unknown type %s", quoteShort(m.Type))
	}
	if err := validateSource(m.Source); err != nil {
		return bad("unknown source %s", quoteShort(m.Source))
	}
	if strings.TrimSpace(m.Text) == "" {
		return bad("the text is empty")
	}
	if err := checkText("text", m.Text, true); err != nil {
		return err
	}
	if len(m.Tags) > MaxTags {
		return bad("%d tags, over the maximum of %d", len(m.Tags), MaxTags)
	}
	for _, t := range m.Tags {
		if err := checkTag(t); err != nil {
			return err
		}
	}
	if len(m.Keys) > MaxKeys {
		return bad("%d keys, over the maximum of %d", len(m.Keys), MaxKeys)
	}
	for _, k := range m.Keys {
		if err := checkKey(k); err != nil {
			return err
		}
	}
	if len(m.Paths) > maxPaths {
		return bad("%d paths, over the maximum of %d", len(m.Paths), maxPaths)
	}
	for _, p := range m.Paths {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	if math.IsNaN(m.Trust) || m.Trust < 0 || m.Trust > 1 {
		return bad("trust %v is outside 0..1", m.Trust)
	}
	for _, f := range [...]struct{ name, v string }{{"agent", m.Agent}, {"subagent", m.Subagent}, {"session", m.Session}, {"author", m.Author}} {
		if err := checkField(f.name, f.v); err != nil {
			return err
		}
	}
	if m.Anchor != nil {
		if m.Anchor.Commit != "" && !validCommit(m.Anchor.Commit) {
			return bad("anchor.commit %s is not a full commit id (40 or 64 lower-case hex digits)", quoteShort(m.Anchor.Commit))
		}
		if err := checkField("anchor.branch", m.Anchor.Branch); err != nil {
			return err
		}
	}
	for _, f := range [...]struct{ name, v string }{{"supersedes", m.Supersedes}, {"superseded_by", m.SupersededBy}} {
		if f.v != "" && !ValidID(f.v) {
			return bad("%s %s is not a full memory id (%d lower-case hex digits)", f.name, quoteShort(f.v), IDHexLen)
		}
	}
	if len(m.Events) > maxEvents {
		return bad("%d events, over the maximum of %d", len(m.Events), maxEvents)
	}
	for i, e := range m.Events {
		switch e.Op {
		case EventConfirm, EventDispute, EventReinforce, EventSupersede:
		default:
			return bad("event %d has unknown op %s", i, quoteShort(e.Op))
		}
		for _, f := range [...]struct{ name, v string }{{"agent", e.Agent}, {"session", e.Session}, {"author", e.Author}} {
			if len(f.v) > maxFieldBytes || !utf8.ValidString(f.v) || strings.ContainsFunc(f.v, isControl) {
				return checkField(fmt.Sprintf("event %d %s", i, f.name), f.v)
			}
		}
		if e.Reason != "" {
			if err := checkText(fmt.Sprintf("event %d reason", i), e.Reason, true); err != nil {
				return err
			}
		}
	}
	if len(m.Reinforced) > maxReinforced {
		return bad("%d reinforcement dates, over the maximum of %d", len(m.Reinforced), maxReinforced)
	}
	return m.Origin.check()
}

// checkField checks a short text field: valid UTF-8, at most maxFieldBytes,
// no control characters.
func checkField(name, v string) error {
	switch {
	case len(v) > maxFieldBytes:
		return fmt.Errorf("%w: %s is %d bytes, over the %d-byte maximum", memerr.ErrInvalid, name, len(v), maxFieldBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not valid UTF-8", memerr.ErrInvalid, name)
	case strings.ContainsFunc(v, isControl):
		return fmt.Errorf("%w: %s %s contains control characters", memerr.ErrInvalid, name, quoteShort(v))
	}
	return nil
}

// isControl reports C0 and C1 control characters and DEL.
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }

// validCommit reports a full commit id: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
func validCommit(s string) bool { return (len(s) == 40 || len(s) == 64) && isHex(s) }

// quoteShort quotes a value for an error message: escaped, and cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "…"
	}
	return strconv.Quote(s)
}

// Clip returns the first n bytes of s, or s when it is shorter: for showing
// a prefix of an id or a commit that may be malformed.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// ValidID reports a full memory id: IDHexLen lower-case hex digits.
func ValidID(id string) bool {
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

// validateText checks a memory text: not empty, not too long, valid UTF-8, no
// binary content, no carriage return. The text itself is stored verbatim.
func validateText(text string) error {
	if strings.TrimSpace(text) == "" {
		return &memerr.InvalidInputError{Field: memerr.FieldText, Reason: memerr.ReasonEmpty}
	}
	return checkText("the text", text, false)
}

// checkText checks the size and characters of a text. Documents written by
// older versions may hold carriage returns (allowCR); new text may not.
func checkText(name, text string, allowCR bool) error {
	if len(text) > MaxTextBytes {
		return fmt.Errorf("%w: %s is %d bytes, over the %d-byte maximum; a memory is one fact: split it into several memories", memerr.ErrInvalid, name, len(text), MaxTextBytes)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: %s is not valid UTF-8; re-encode it as UTF-8", memerr.ErrInvalid, name)
	}
	for i, r := range text {
		switch {
		case r == 0:
			return fmt.Errorf("%w: %s contains a NUL byte at byte %d; binary content cannot be stored", memerr.ErrInvalid, name, i)
		case r == '\r' && !allowCR:
			return fmt.Errorf("%w: %s contains a carriage return (CR) at byte %d; use plain newlines (convert CRLF line endings to LF)", memerr.ErrInvalid, name, i)
		case unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t':
			return fmt.Errorf("%w: %s contains control character %U at byte %d; only tab and newline are allowed: remove it (terminal escape sequences cannot be stored)", memerr.ErrInvalid, name, r, i)
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
	return &memerr.SecretError{Findings: findings}
}

// ValidateType checks a memory type against Types.
func ValidateType(t string) error {
	for _, k := range Types {
		if t == k {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown type %q; use one of %s", memerr.ErrInvalid, t, strings.Join(Types, ", "))
}

// validateSource checks a source against Sources.
func validateSource(s string) error {
	for _, k := range Sources {
		if s == k {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown source %q; use one of %s", memerr.ErrInvalid, s, strings.Join(Sources, ", "))
}

// normalizeKeys trims retrieval keys, drops blanks and duplicates (letter
// case aside), and rejects keys longer than MaxKeyBytes, with control
// characters, or more than MaxKeys of them.
func normalizeKeys(keys []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		k = strings.Join(strings.Fields(k), " ")
		if k == "" || seen[strings.ToLower(k)] {
			continue
		}
		if err := checkKey(k); err != nil {
			return nil, err
		}
		seen[strings.ToLower(k)] = true
		out = append(out, k)
	}
	if len(out) > MaxKeys {
		return nil, fmt.Errorf("%w: %d keys, over the maximum of %d; keep the words and questions a later reader would most likely use", memerr.ErrInvalid, len(out), MaxKeys)
	}
	return out, nil
}

// checkKey checks one retrieval key: valid UTF-8, at most MaxKeyBytes, no
// control characters.
func checkKey(k string) error {
	if !utf8.ValidString(k) {
		return fmt.Errorf("%w: key %s is not valid UTF-8", memerr.ErrInvalid, quoteShort(k))
	}
	if len(k) > MaxKeyBytes {
		return fmt.Errorf("%w: key %s is longer than %d bytes; a key is a few words or a short question", memerr.ErrInvalid, quoteShort(k), MaxKeyBytes)
	}
	if strings.TrimSpace(k) == "" || strings.ContainsFunc(k, isControl) {
		return fmt.Errorf("%w: key %s is empty or holds a control character", memerr.ErrInvalid, quoteShort(k))
	}
	return nil
}

// normalizeTags lower-cases tags, drops blanks and duplicates, and rejects
// characters that would not survive a command line or a search, tags longer
// than maxTagBytes and more than MaxTags tags.
func normalizeTags(tags []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			continue
		}
		if err := checkTag(t); err != nil {
			return nil, err
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags, over the maximum of %d; keep the few that someone would search for", memerr.ErrInvalid, len(out), MaxTags)
	}
	return out, nil
}

// checkTag checks one tag: at most maxTagBytes, letters, digits and - _ . : /.
func checkTag(t string) error {
	if len(t) > maxTagBytes {
		return fmt.Errorf("%w: tag %s is longer than %d bytes; use a shorter label", memerr.ErrInvalid, quoteShort(t), maxTagBytes)
	}
	if !utf8.ValidString(t) {
		return fmt.Errorf("%w: tag %s is not valid UTF-8", memerr.ErrInvalid, quoteShort(t))
	}
	for _, r := range t {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.:/", r)) {
			return fmt.Errorf("%w: tag %s contains %q; tags use letters, digits and - _ . : /", memerr.ErrInvalid, quoteShort(t), r)
		}
	}
	return nil
}

// checkPath checks one stored path: not empty, at most maxPathBytes of valid
// UTF-8 without control characters.
func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: an empty path", memerr.ErrInvalid)
	case len(p) > maxPathBytes:
		return fmt.Errorf("%w: path %s is %d bytes, over the %d-byte maximum; give the file's path relative to the repository root", memerr.ErrInvalid, quoteShort(p), len(p), maxPathBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: path %s is not valid UTF-8 text", memerr.ErrInvalid, quoteShort(p))
	case strings.ContainsFunc(p, isControl):
		return fmt.Errorf("%w: path %s contains control characters; give the file's real path", memerr.ErrInvalid, quoteShort(p))
	}
	return nil
}

// normalizePaths turns paths into clean repository-relative forward-slash
// paths, and rejects control characters, paths longer than maxPathBytes and
// more than maxPaths paths.
func normalizePaths(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
		if p == "" {
			continue
		}
		if err := checkPath(p); err != nil {
			return nil, err
		}
		c := path.Clean(strings.TrimPrefix(p, "./"))
		if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
			return nil, fmt.Errorf("%w: path %s is outside the repository; give it relative to the repository root", memerr.ErrInvalid, quoteShort(p))
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	if len(out) > maxPaths {
		return nil, fmt.Errorf("%w: %d paths, over the maximum of %d; name the files the memory is about, or a directory", memerr.ErrInvalid, len(out), maxPaths)
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

// CheckReason refuses a rejection's reason that is empty, too long, not
// one line of text, or that holds a secret: it is recorded in a history
// everyone fetches.
func CheckReason(reason string) error {
	r := strings.TrimSpace(reason)
	bad := func(why string) error {
		return &memerr.InvalidInputError{Field: "reason", Value: Clip(reason, 60), Reason: why}
	}
	switch {
	case r == "":
		return bad("give the reason for the rejection with --reason")
	case len(r) > maxFieldBytes:
		return bad(fmt.Sprintf("the reason is %d bytes, over the %d-byte maximum", len(r), maxFieldBytes))
	}
	if err := checkText("the reason", r, false); err != nil {
		return err
	}
	if strings.ContainsAny(r, "\n\t") {
		return bad("the reason is one line of text")
	}
	return CheckSecrets(r)
}
