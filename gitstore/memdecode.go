package gitstore

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// A hook decodes every memory it shows, and a read of a store every
// document: encoding/json, driven by reflection, is several times slower
// than a reader written for the one shape, and slower still the first time
// in a process (BenchmarkDecodeMemory measures both). decodeMemory reads
// documents of the shape Encode writes, and leaves anything else (an unknown, repeated or differently cased field, a
// null, a surrogate escape, invalid UTF-8) to encoding/json. The tests
// hold the two to the same result on every input.

// memoryFields are the fields of a document, each read at most once.
var memoryFields = map[string]int{
	"schema": 0, "id": 1, "type": 2, "text": 3, "tags": 4, "paths": 5, "keys": 6, "source": 7,
	"tentative": 8, "pinned": 9, "trust": 10, "agent": 11, "subagent": 12, "session": 13,
	"author": 14, "anchor": 15, "created": 16, "updated": 17, "valid_from": 18, "valid_to": 19,
	"supersedes": 20, "superseded_by": 21, "events": 22, "reinforced": 23, "origin": 24,
}

// eventFields are the fields of an event, each read at most once.
var eventFields = map[string]int{"op": 0, "at": 1, "agent": 2, "session": 3, "author": 4, "reason": 5}

// decodeMemory reads data as one JSON object of memoryFields and nothing
// after it but blanks; ok is false for anything it does not read as
// encoding/json would.
func decodeMemory(data []byte) (m Memory, ok bool) {
	r := &jsonReader{b: data}
	var seen uint32
	r.object(func(key []byte) {
		f, known := memoryFields[string(key)]
		if !known || seen&(1<<f) != 0 {
			r.bad = true
			return
		}
		seen |= 1 << f
		switch f {
		case 0:
			m.Schema = r.int()
		case 1:
			m.ID = r.str()
		case 2:
			m.Type = r.str()
		case 3:
			m.Text = r.str()
		case 4:
			m.Tags = r.strs()
		case 5:
			m.Paths = r.strs()
		case 6:
			m.Keys = r.strs()
		case 7:
			m.Source = r.str()
		case 8:
			m.Tentative = r.bool()
		case 9:
			m.Pinned = r.bool()
		case 10:
			m.Trust = r.float()
		case 11:
			m.Agent = r.str()
		case 12:
			m.Subagent = r.str()
		case 13:
			m.Session = r.str()
		case 14:
			m.Author = r.str()
		case 15:
			m.Anchor = r.anchor()
		case 16:
			m.Created = r.time()
		case 17:
			m.Updated = r.time()
		case 18:
			m.ValidFrom = r.time()
		case 19:
			t := r.time()
			m.ValidTo = &t
		case 20:
			m.Supersedes = r.str()
		case 21:
			m.SupersededBy = r.str()
		case 22:
			m.Events = r.events()
		case 23:
			m.Reinforced = r.times()
		case 24:
			m.Origin = r.origin()
		}
	})
	r.blanks()
	if r.bad || r.i != len(r.b) {
		return Memory{}, false
	}
	return m, true
}

// jsonReader reads the JSON values a memory document holds; bad is set at
// the first thing it does not read (and every read after returns zero).
type jsonReader struct {
	b   []byte
	i   int
	bad bool
}

func (r *jsonReader) blanks() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// take consumes c after blanks, or sets bad.
func (r *jsonReader) take(c byte) bool {
	r.blanks()
	if r.bad || r.i >= len(r.b) || r.b[r.i] != c {
		r.bad = true
		return false
	}
	r.i++
	return true
}

// peek is the next byte after blanks (0 at the end).
func (r *jsonReader) peek() byte {
	r.blanks()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// object reads {"key": value, ...}, field reading each value; a key is
// the bytes between its quotes (one with an escape is no field's name).
func (r *jsonReader) object(field func(key []byte)) {
	if !r.take('{') {
		return
	}
	if r.peek() == '}' {
		r.i++
		return
	}
	for !r.bad {
		tok, escaped := r.token()
		if escaped {
			r.bad = true
		}
		if !r.take(':') {
			return
		}
		field(tok[1 : len(tok)-1])
		if r.peek() == ',' {
			r.i++
			continue
		}
		r.take('}')
		return
	}
}

// array reads [value, ...], item reading each value.
func (r *jsonReader) array(item func()) {
	if !r.take('[') {
		return
	}
	if r.peek() == ']' {
		r.i++
		return
	}
	for !r.bad {
		item()
		if r.peek() == ',' {
			r.i++
			continue
		}
		r.take(']')
		return
	}
}

// token returns a string token with its quotes, and whether it holds an
// escape; bad for a control character or invalid UTF-8 in it.
func (r *jsonReader) token() (tok []byte, escaped bool) {
	if !r.take('"') {
		return nil, false
	}
	start := r.i - 1
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			tok = r.b[start:r.i]
			if !utf8.Valid(tok) {
				r.bad = true
				return nil, false
			}
			return tok, escaped
		case c == '\\':
			escaped = true
			r.i += 2
		case c < 0x20:
			r.bad = true
			return nil, false
		default:
			r.i++
		}
	}
	r.bad = true
	return nil, false
}

func (r *jsonReader) str() string {
	tok, escaped := r.token()
	if r.bad {
		return ""
	}
	body := tok[1 : len(tok)-1]
	if !escaped {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= len(body) {
				r.bad = true
				return ""
			}
			v, err := strconv.ParseUint(string(body[i+1:i+5]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(v)) {
				r.bad = true // a surrogate pair is encoding/json's to read
				return ""
			}
			out = utf8.AppendRune(out, rune(v))
			i += 4
		default:
			r.bad = true
			return ""
		}
	}
	return string(out)
}

func (r *jsonReader) strs() []string {
	out := []string{}
	r.array(func() { out = append(out, r.str()) })
	return out
}

// number returns a number token as JSON writes numbers.
func (r *jsonReader) number() string {
	r.blanks()
	start := r.i
	digits := func() int {
		n := 0
		for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	first := r.i
	if digits() == 0 || (r.b[first] == '0' && r.i-first > 1) {
		r.bad = true
		return ""
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if digits() == 0 {
			r.bad = true
			return ""
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			r.bad = true
			return ""
		}
	}
	return string(r.b[start:r.i])
}

func (r *jsonReader) int() int {
	tok := r.number()
	if r.bad {
		return 0
	}
	n, err := strconv.Atoi(tok)
	if err != nil {
		r.bad = true // a fraction, an exponent or out of range: encoding/json's error
	}
	return n
}

func (r *jsonReader) float() float64 {
	tok := r.number()
	if r.bad {
		return 0
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		r.bad = true
	}
	return f
}

func (r *jsonReader) bool() bool {
	r.blanks()
	switch {
	case bytes.HasPrefix(r.b[r.i:], []byte("true")):
		r.i += 4
		return true
	case bytes.HasPrefix(r.b[r.i:], []byte("false")):
		r.i += 5
		return false
	}
	r.bad = true
	return false
}

func (r *jsonReader) time() time.Time {
	var t time.Time
	tok, _ := r.token()
	if r.bad {
		return t
	}
	if t.UnmarshalJSON(tok) != nil {
		r.bad = true
	}
	return t
}

func (r *jsonReader) times() []time.Time {
	out := []time.Time{}
	r.array(func() { out = append(out, r.time()) })
	return out
}

func (r *jsonReader) anchor() *Anchor {
	a := &Anchor{}
	var seen [2]bool
	r.object(func(key []byte) {
		switch k := string(key); {
		case k == "commit" && !seen[0]:
			seen[0], a.Commit = true, r.str()
		case k == "branch" && !seen[1]:
			seen[1], a.Branch = true, r.str()
		default:
			r.bad = true
		}
	})
	return a
}

func (r *jsonReader) origin() *Origin {
	o := &Origin{}
	var seen [2]bool
	r.object(func(key []byte) {
		switch k := string(key); {
		case k == "file" && !seen[0]:
			seen[0], o.File = true, r.str()
		case k == "line" && !seen[1]:
			seen[1], o.Line = true, r.int()
		default:
			r.bad = true
		}
	})
	return o
}

func (r *jsonReader) events() []Event {
	out := []Event{}
	r.array(func() {
		var e Event
		var seen [6]bool
		r.object(func(key []byte) {
			f, known := eventFields[string(key)]
			if !known || seen[f] {
				r.bad = true
				return
			}
			seen[f] = true
			switch f {
			case 0:
				e.Op = r.str()
			case 1:
				e.At = r.time()
			case 2:
				e.Agent = r.str()
			case 3:
				e.Session = r.str()
			case 4:
				e.Author = r.str()
			case 5:
				e.Reason = r.str()
			}
		})
		out = append(out, e)
	})
	return out
}
