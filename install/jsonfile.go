package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/git-mem/git-mem/memerr"
)

// Agents' JSON config files are edited as ordered trees, so that a merge
// keeps every other key where it was, and written back with the indentation
// the file already used.

// jobj is a JSON object with its keys in file order.
type jobj struct {
	keys []string
	vals map[string]any
	// inner, for an empty object restored by an uninstall, is what the
	// user's file held between its braces ("{ }", "{\n  }"), so that it
	// comes back byte for byte.
	inner []byte
}

func newObj() *jobj { return &jobj{vals: map[string]any{}} }

func (o *jobj) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *jobj) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jobj) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// obj returns the object at key k, creating it when absent; it fails when
// the key holds something else.
func (o *jobj) obj(k string) (*jobj, error) {
	v, ok := o.vals[k]
	if !ok {
		n := newObj()
		o.set(k, n)
		return n, nil
	}
	n, ok := v.(*jobj)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a JSON object", memerr.ErrInvalid, k)
	}
	return n, nil
}

func (o *jobj) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

// parseJSON reads a JSON document into ordered values: *jobj, []any, string,
// json.Number, bool, nil.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON document")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObj()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// detectIndent returns the indentation unit of a JSON file: the leading
// whitespace of its first indented line, two spaces when there is none.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

// encodeJSON writes a value with the indent unit and a trailing newline.
func encodeJSON(v any, indent string) []byte {
	var b bytes.Buffer
	writeValue(&b, v, indent, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string, depth int) {
	nl := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(indent, d))
	}
	switch v := v.(type) {
	case *jobj:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, v.vals[k], indent, depth+1)
		}
		nl(depth)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeValue(b, x, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case []string:
		arr := make([]any, len(v))
		for i, s := range v {
			arr[i] = s
		}
		writeValue(b, arr, indent, depth)
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case int:
		fmt.Fprintf(b, "%d", v)
	case bool:
		fmt.Fprintf(b, "%t", v)
	case nil:
		b.WriteString("null")
	default:
		data, _ := json.Marshal(v)
		b.Write(data)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimRight(sb.Bytes(), "\n"))
}
