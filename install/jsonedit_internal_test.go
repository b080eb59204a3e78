package install

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONDocEdits: each edit changes only the member or element it is
// about, in the layout of its siblings, and undoing it in the tree gives the
// original bytes back.
func TestJSONDocEdits(t *testing.T) {
	obj := func(kv ...any) *jobj {
		o := newObj()
		for i := 0; i < len(kv); i += 2 {
			o.set(kv[i].(string), kv[i+1])
		}
		return o
	}
	cases := []struct {
		name, in, want string
		edit           func(root *jobj)
	}{
		{"add to an empty object", "{}\n", "{\n  \"a\": 1\n}\n",
			func(r *jobj) { r.set("a", 1) }},
		{"add after a comment on the last line", "{\n  \"a\": 1 // one\n}\n", "{\n  \"a\": 1, // one\n  \"b\": {\n    \"c\": true\n  }\n}\n",
			func(r *jobj) { r.set("b", obj("c", true)) }},
		{"add with a trailing comma", "{\n\t\"a\": 1,\n}", "{\n\t\"a\": 1,\n\t\"b\": 2,\n}",
			func(r *jobj) { r.set("b", 2) }},
		{"add on one line", `{"a": [1, 2]}`, `{"a": [1, 2], "b": "x"}`,
			func(r *jobj) { r.set("b", "x") }},
		{"add to a one-line list", `{"a": [1, 2]}`, `{"a": [1, 2, 3]}`,
			func(r *jobj) { r.set("a", []any{1, 2, 3}) }},
		{"add inside a nested empty list", "{\n    \"h\": {\n        \"E\": []\n    }\n}\n", "{\n    \"h\": {\n        \"E\": [\n            \"x\"\n        ]\n    }\n}\n",
			func(r *jobj) { r.vals["h"].(*jobj).set("E", []any{"x"}) }},
		{"change a value, keep its comments", "{\n  /* why */ \"a\": 1, // now\n  \"b\": 2\n}\n", "{\n  /* why */ \"a\": 5, // now\n  \"b\": 2\n}\n",
			func(r *jobj) { r.set("a", 5) }},
		{"drop a middle element", "[\n  1,\n  2, // two\n  3\n]\n", "[\n  1,\n  3\n]\n",
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := parseJSONDoc([]byte(c.in))
			require.NoError(t, err)
			orig, err := doc.tree()
			require.NoError(t, err)
			want, err := doc.tree()
			require.NoError(t, err)
			if c.edit == nil { // a list: drop its middle element
				arr := want.([]any)
				want = []any{arr[0], arr[2]}
			} else {
				c.edit(want.(*jobj))
			}
			require.NoError(t, doc.set(want))
			require.Equal(t, c.want, string(doc.bytes()))
			if c.edit == nil {
				return // a removed comment cannot come back
			}
			again, err := parseJSONDoc(doc.bytes())
			require.NoError(t, err)
			require.NoError(t, again.set(orig))
			require.Equal(t, c.in, string(again.bytes()), "undone byte for byte")
		})
	}
}
