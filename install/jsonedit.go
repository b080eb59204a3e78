package install

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// Agents' JSON settings are edited as surgery, not rewritten: the file is
// parsed with its comments, trailing commas and whitespace (JSON with
// comments, as Gemini CLI and VS Code-style settings accept), the wanted
// value is computed on a plain tree, and only the members and elements that
// differ are changed in the parsed file. Every other byte stays. An entry is
// appended after its siblings in their own layout, and removing it undoes
// exactly that, so an install followed by an uninstall gives the file back
// byte for byte.

// jsonDoc is a JSON-with-comments file being edited.
type jsonDoc struct {
	ast hujson.Value
	// unit is the file's indentation step, used inside new values.
	unit string
}

// parseJSONDoc parses JSON with comments and trailing commas.
func parseJSONDoc(data []byte) (*jsonDoc, error) {
	ast, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	if err := noDuplicateKeys(ast, ""); err != nil {
		return nil, err
	}
	return &jsonDoc{ast: ast, unit: detectIndent(data)}, nil
}

// noDuplicateKeys fails on an object that holds a key twice: agents read the
// last one, an edit would change the first, so the file is refused rather
// than edited where nobody reads it.
func noDuplicateKeys(v hujson.Value, path string) error {
	switch c := v.Value.(type) {
	case *hujson.Object:
		seen := map[string]bool{}
		for _, m := range c.Members {
			name := m.Name.Value.(hujson.Literal).String()
			if seen[name] {
				return fmt.Errorf("the key %q appears twice in %s; agents read only the last one: keep one, then run again", name, jsonPlace(path))
			}
			seen[name] = true
			if err := noDuplicateKeys(m.Value, path+"/"+jsonPathEscape(name)); err != nil {
				return err
			}
		}
	case *hujson.Array:
		for _, e := range c.Elements {
			if err := noDuplicateKeys(e, path+"/[]"); err != nil {
				return err
			}
		}
	}
	return nil
}

func jsonPlace(path string) string {
	if path == "" {
		return "the top-level object"
	}
	return "the object at " + path
}

// emptyInner is what lies between the braces of the empty object at a key
// path of filledEmpty ("" for the root) in the file as it was.
func emptyInner(v hujson.Value, path string) []byte {
	if path != "" {
		for _, part := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
			k := strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			obj, ok := v.Value.(*hujson.Object)
			if !ok {
				return nil
			}
			found := false
			for _, m := range obj.Members {
				if m.Name.Value.(hujson.Literal).String() == k {
					v, found = m.Value, true
				}
			}
			if !found {
				return nil
			}
		}
	}
	if obj, ok := v.Value.(*hujson.Object); ok && len(obj.Members) == 0 {
		return append([]byte(nil), obj.AfterExtra...)
	}
	if arr, ok := v.Value.(*hujson.Array); ok && len(arr.Elements) == 0 {
		return append([]byte(nil), arr.AfterExtra...)
	}
	return nil
}

// keptEntry is one record of a user's empty container an install filled:
// its key path and, after a NUL, what its braces held.
func keptEntry(path string, inner []byte) string {
	if len(inner) == 0 {
		return path
	}
	return path + "\x00" + string(inner)
}

func splitKept(e string) (path string, inner []byte) {
	if strings.HasPrefix(e, "+") {
		p, _, _ := strings.Cut(e, "\x00")
		return p, nil // a record of its own (addedVersion, userServers)
	}
	p, in, ok := strings.Cut(e, "\x00")
	if !ok {
		return e, nil
	}
	return p, []byte(in)
}

// keptHas reports whether the records hold the key path.
func keptHas(kept []string, path string) bool {
	for _, e := range kept {
		if p, _ := splitKept(e); p == path {
			return true
		}
	}
	return false
}

// tree returns the document as plain ordered values (*jobj, []any, …),
// comments left out.
func (d *jsonDoc) tree() (any, error) { return hujsonTree(d.ast) }

func hujsonTree(v hujson.Value) (any, error) {
	c := v.Clone()
	c.Standardize()
	return parseJSON(c.Pack())
}

// set changes the document to hold want, touching only what differs.
func (d *jsonDoc) set(want any) error {
	return reconcile(&d.ast, want, "", d.unit)
}

// bytes is the edited file.
func (d *jsonDoc) bytes() []byte { return d.ast.Pack() }

// canonical is a compact encoding of a plain value, equal for equal values.
func canonical(v any) string {
	var b bytes.Buffer
	writeCompact(&b, v)
	return b.String()
}

func writeCompact(b *bytes.Buffer, v any) { writeOneLine(b, v, ",", ":") }

// writeOneLine writes a value on one line, with comma and colon between
// members; scalars are written as writeValue writes them.
func writeOneLine(b *bytes.Buffer, v any, comma, colon string) {
	switch v := v.(type) {
	case *jobj:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(comma)
			}
			writeString(b, k)
			b.WriteString(colon)
			writeOneLine(b, v.vals[k], comma, colon)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			writeOneLine(b, x, comma, colon)
		}
		b.WriteByte(']')
	default:
		var sb bytes.Buffer
		writeValue(&sb, v, "", 0)
		b.Write(sb.Bytes())
	}
}

func canonicalAST(v hujson.Value) string {
	t, err := hujsonTree(v)
	if err != nil {
		return "\x00invalid"
	}
	return canonical(t)
}

// reconcile makes *v hold want. lineInd is the indentation of the line v
// starts on; unit the file's indentation step.
func reconcile(v *hujson.Value, want any, lineInd, unit string) error {
	if canonicalAST(*v) == canonical(want) {
		return nil
	}
	switch cur := v.Value.(type) {
	case *hujson.Object:
		if w, ok := want.(*jobj); ok {
			return reconcileObject(cur, w, lineInd, unit)
		}
	case *hujson.Array:
		if w, ok := want.([]any); ok {
			return reconcileArray(cur, w, lineInd, unit)
		}
	}
	if w, ok := want.(*jobj); ok && len(w.keys) == 0 && w.inner != nil {
		v.Value = &hujson.Object{AfterExtra: append(hujson.Extra(nil), w.inner...)}
		return nil
	}
	nv, err := newValue(want, lineInd, unit, multiline(v))
	if err != nil {
		return err
	}
	v.Value = nv.Value
	return nil
}

func reconcileObject(obj *hujson.Object, want *jobj, lineInd, unit string) error {
	if len(want.keys) == 0 && want.inner != nil {
		// a user's empty object, restored as it was written
		obj.Members, obj.AfterExtra = nil, append(hujson.Extra(nil), want.inner...)
		return nil
	}
	for i := len(obj.Members) - 1; i >= 0; i-- {
		name := obj.Members[i].Name.Value.(hujson.Literal).String()
		if _, ok := want.vals[name]; !ok {
			removeItem(&obj.Members, i, &obj.AfterExtra, lineInd, func(m *hujson.ObjectMember) (*hujson.Extra, *hujson.Extra) {
				return &m.Name.BeforeExtra, &m.Value.AfterExtra
			})
		}
	}
	for _, k := range want.keys {
		found := false
		for i := range obj.Members {
			m := &obj.Members[i]
			if m.Name.Value.(hujson.Literal).String() != k {
				continue
			}
			found = true
			if err := reconcile(&m.Value, want.vals[k], itemIndent(m.Name.BeforeExtra, lineInd), unit); err != nil {
				return err
			}
			break
		}
		if found {
			continue
		}
		var sep hujson.Extra = hujson.Extra(" ")
		var nameAfter hujson.Extra
		if n := len(obj.Members); n > 0 {
			sep = append(hujson.Extra(nil), obj.Members[n-1].Value.BeforeExtra...)
			nameAfter = append(hujson.Extra(nil), obj.Members[n-1].Name.AfterExtra...)
			if bytes.ContainsAny(sep, "/\n") {
				sep = hujson.Extra(" ")
			}
			if bytes.ContainsAny(nameAfter, "/\n") {
				nameAfter = nil
			}
		}
		before, ind, ml := appendLayout(len(obj.Members), obj.Members, &obj.AfterExtra, lineInd, unit, func(m hujson.ObjectMember) hujson.Extra { return m.Name.BeforeExtra }, isMultiObject(obj))
		val, err := newValue(want.vals[k], ind, unit, ml)
		if err != nil {
			return err
		}
		val.BeforeExtra = sep
		if !ml && len(before) == 0 && string(sep) == " " {
			before = hujson.Extra(" ") // {"a": 1, "b": 2}: spaced as the file spaces its colons
		}
		nameLit, err := newValue(k, ind, unit, false)
		if err != nil {
			return err
		}
		nameLit.BeforeExtra, nameLit.AfterExtra = before, nameAfter
		appendItem(&obj.Members, hujson.ObjectMember{Name: nameLit, Value: val}, func(m *hujson.ObjectMember) *hujson.Extra { return &m.Value.AfterExtra })
	}
	return nil
}

// reconcileArray keeps the elements that are equal (a longest common
// subsequence), edits the unmatched ones pairwise in place, and removes or
// appends what is left.
func reconcileArray(arr *hujson.Array, want []any, lineInd, unit string) error {
	old := make([]string, len(arr.Elements))
	for i, e := range arr.Elements {
		old[i] = canonicalAST(e)
	}
	neu := make([]string, len(want))
	for j, w := range want {
		neu[j] = canonical(w)
	}
	// lcs[i][j]: length of the longest common subsequence of old[i:], neu[j:]
	lcs := make([][]int, len(old)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(neu)+1)
	}
	for i := len(old) - 1; i >= 0; i-- {
		for j := len(neu) - 1; j >= 0; j-- {
			if old[i] == neu[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	// plan: for each old element, the new index it becomes (-1: removed);
	// new elements no old one becomes are inserted.
	type step struct{ oldIdx, newIdx int }
	var steps []step
	i, j := 0, 0
	var runOld, runNew []int
	flush := func() {
		n := min(len(runOld), len(runNew))
		for k := 0; k < n; k++ {
			steps = append(steps, step{runOld[k], runNew[k]})
		}
		for _, o := range runOld[n:] {
			steps = append(steps, step{o, -1})
		}
		for _, nw := range runNew[n:] {
			steps = append(steps, step{-1, nw})
		}
		runOld, runNew = nil, nil
	}
	for i < len(old) || j < len(neu) {
		switch {
		case i < len(old) && j < len(neu) && old[i] == neu[j]:
			flush()
			steps = append(steps, step{i, j})
			i++
			j++
		case j >= len(neu) || i < len(old) && lcs[i+1][j] >= lcs[i][j+1]:
			runOld = append(runOld, i)
			i++
		default:
			runNew = append(runNew, j)
			j++
		}
	}
	flush()
	// edit pairs in place first (indices stay valid), then remove from the
	// end, then append.
	for _, s := range steps {
		if s.oldIdx >= 0 && s.newIdx >= 0 && old[s.oldIdx] != neu[s.newIdx] {
			e := &arr.Elements[s.oldIdx]
			if err := reconcile(e, want[s.newIdx], itemIndent(e.BeforeExtra, lineInd), unit); err != nil {
				return err
			}
		}
	}
	for k := len(steps) - 1; k >= 0; k-- {
		if s := steps[k]; s.oldIdx >= 0 && s.newIdx < 0 {
			removeItem(&arr.Elements, s.oldIdx, &arr.AfterExtra, lineInd, func(e *hujson.Value) (*hujson.Extra, *hujson.Extra) {
				return &e.BeforeExtra, &e.AfterExtra
			})
		}
	}
	// new elements go after the kept element that precedes them
	pos := 0 // index in arr.Elements of the next kept element
	for _, s := range steps {
		switch {
		case s.oldIdx >= 0 && s.newIdx >= 0:
			pos++
		case s.newIdx >= 0:
			if err := insertElement(arr, pos, want[s.newIdx], lineInd, unit); err != nil {
				return err
			}
			pos++
		}
	}
	return nil
}

func insertElement(arr *hujson.Array, pos int, want any, lineInd, unit string) error {
	ml := isMultiArray(arr)
	if pos == len(arr.Elements) {
		before, ind, ml := appendLayout(len(arr.Elements), arr.Elements, &arr.AfterExtra, lineInd, unit, func(e hujson.Value) hujson.Extra { return e.BeforeExtra }, ml)
		val, err := newValue(want, ind, unit, ml)
		if err != nil {
			return err
		}
		val.BeforeExtra = before
		appendItem(&arr.Elements, val, func(e *hujson.Value) *hujson.Extra { return &e.AfterExtra })
		return nil
	}
	// before an existing element: in its layout, a comma after
	next := arr.Elements[pos]
	ind := itemIndent(next.BeforeExtra, lineInd)
	val, err := newValue(want, ind, unit, ml)
	if err != nil {
		return err
	}
	val.BeforeExtra = trailingSpace(next.BeforeExtra)
	val.AfterExtra = hujson.Extra{}
	arr.Elements = append(arr.Elements[:pos], append([]hujson.Value{val}, arr.Elements[pos:]...)...)
	return nil
}

// appendLayout says how an item appended to a composite is laid out: the
// whitespace before it, the indentation of its line, and whether it spans
// lines. A same-line comment after the last item stays with that item.
func appendLayout[T any](n int, items []T, after *hujson.Extra, lineInd, unit string, beforeOf func(T) hujson.Extra, ml bool) (hujson.Extra, string, bool) {
	if n == 0 {
		ind := lineInd + unit
		if !bytes.Contains(*after, []byte("\n")) && len(bytes.TrimSpace(*after)) == 0 {
			*after = hujson.Extra("\n" + lineInd)
		}
		return hujson.Extra("\n" + ind), ind, true
	}
	last := beforeOf(items[n-1])
	if !ml {
		return trailingSpace(last), lineInd, false
	}
	ind := itemIndent(last, lineInd)
	var head hujson.Extra
	if nl := bytes.IndexByte(*after, '\n'); nl >= 0 {
		head = append(hujson.Extra(nil), (*after)[:nl]...)
		*after = append(hujson.Extra(nil), (*after)[nl:]...)
	}
	return append(head, []byte("\n"+ind)...), ind, true
}

// appendItem appends an item, putting a comma after the one before it; a
// list written with a trailing comma keeps one.
func appendItem[T any](items *[]T, item T, afterOf func(*T) *hujson.Extra) {
	if n := len(*items); n > 0 {
		prev := afterOf(&(*items)[n-1])
		if *prev == nil {
			*prev = hujson.Extra{}
		} else {
			*afterOf(&item) = hujson.Extra{}
		}
	}
	*items = append(*items, item)
}

// removeItem removes item i, undoing appendItem and appendLayout: the comma
// before a last item goes with it, a comment kept on the previous item's line
// goes back after it, and a composite left empty closes as it was opened.
func removeItem[T any](items *[]T, i int, after *hujson.Extra, lineInd string, extras func(*T) (before, after *hujson.Extra)) {
	n := len(*items)
	before, itemAfter := extras(&(*items)[i])
	if i == n-1 {
		if nl := bytes.LastIndexByte(*before, '\n'); nl >= 0 {
			*after = append(append(hujson.Extra(nil), (*before)[:nl]...), *after...)
		}
		if n > 1 {
			// the new last item ends as the removed one did: with a
			// trailing comma (a non-nil Extra after it) or without
			_, prevAfter := extras(&(*items)[n-2])
			switch {
			case *itemAfter != nil && *prevAfter == nil:
				*prevAfter = hujson.Extra{}
			case *itemAfter == nil:
				if len(*prevAfter) > 0 {
					*after = append(append(hujson.Extra(nil), *prevAfter...), *after...)
				}
				*prevAfter = nil
			}
		}
		if n == 1 && string(*after) == "\n"+lineInd {
			*after = hujson.Extra{}
		}
	}
	if i < n-1 {
		// the comment on the removed item's line sits before the next item:
		// it goes too, and a comment that was on the line before stays
		nextBefore, _ := extras(&(*items)[i+1])
		if b, nb := bytes.IndexByte(*before, '\n'), bytes.IndexByte(*nextBefore, '\n'); b >= 0 && nb >= 0 {
			*nextBefore = append(append(hujson.Extra(nil), (*before)[:b]...), (*nextBefore)[nb:]...)
		}
	}
	*items = append((*items)[:i:i], (*items)[i+1:]...)
}

// itemIndent is the indentation of the line an item starts on: what follows
// the last newline before it, else (same line) the enclosing line's.
func itemIndent(before hujson.Extra, lineInd string) string {
	if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 {
		return string(before[nl+1:])
	}
	return lineInd
}

// trailingSpace is the whitespace of an Extra after its last comment.
func trailingSpace(b hujson.Extra) hujson.Extra {
	s := string(b)
	if nl := strings.LastIndexByte(s, '\n'); nl >= 0 {
		return hujson.Extra(s[nl:])
	}
	if strings.Contains(s, "/") {
		return hujson.Extra(" ")
	}
	return hujson.Extra(s)
}

func multiline(v *hujson.Value) bool {
	switch c := v.Value.(type) {
	case *hujson.Object:
		return isMultiObject(c)
	case *hujson.Array:
		return isMultiArray(c)
	}
	return true
}

func isMultiObject(o *hujson.Object) bool {
	if bytes.Contains(o.AfterExtra, []byte("\n")) {
		return true
	}
	for _, m := range o.Members {
		if bytes.Contains(m.Name.BeforeExtra, []byte("\n")) {
			return true
		}
	}
	return len(o.Members) == 0
}

func isMultiArray(a *hujson.Array) bool {
	if bytes.Contains(a.AfterExtra, []byte("\n")) {
		return true
	}
	for _, e := range a.Elements {
		if bytes.Contains(e.BeforeExtra, []byte("\n")) {
			return true
		}
	}
	return len(a.Elements) == 0
}

// newValue formats a plain value to put on a line indented lineInd: over
// several lines (the file's step deeper each level), or on one.
func newValue(v any, lineInd, unit string, ml bool) (hujson.Value, error) {
	var b bytes.Buffer
	if ml {
		writeValueAt(&b, v, lineInd, unit, 0)
	} else {
		writeCompactSpaced(&b, v)
	}
	nv, err := hujson.Parse(b.Bytes())
	if err != nil {
		return hujson.Value{}, fmt.Errorf("formatting a JSON value: %w", err)
	}
	nv.BeforeExtra, nv.AfterExtra = nil, nil
	return nv, nil
}

// writeCompactSpaced writes a value on one line as people write it
// ({"a": 1, "b": [2]}).
func writeCompactSpaced(b *bytes.Buffer, v any) { writeOneLine(b, v, ", ", ": ") }

// writeValueAt is writeValue with every line after the first starting with
// base.
func writeValueAt(b *bytes.Buffer, v any, base, unit string, depth int) {
	var tmp bytes.Buffer
	writeValue(&tmp, v, unit, depth)
	b.Write(bytes.ReplaceAll(tmp.Bytes(), []byte("\n"), []byte("\n"+base)))
}

// filledEmpty lists the key paths ("/"-joined) of objects and lists that
// were empty in before and hold something in after: a user's empty
// "mcpServers": {} that an install filled, which its uninstall must leave
// as it found it. The root itself is "".
func filledEmpty(before, after any, prefix string) []string {
	var out []string
	switch b := before.(type) {
	case *jobj:
		a, ok := after.(*jobj)
		if !ok {
			return nil
		}
		if len(b.keys) == 0 && len(a.keys) > 0 {
			return []string{prefix}
		}
		for _, k := range b.keys {
			if av, ok := a.vals[k]; ok {
				out = append(out, filledEmpty(b.vals[k], av, prefix+"/"+jsonPathEscape(k))...)
			}
		}
	case []any:
		if a, ok := after.([]any); ok && len(b) == 0 && len(a) > 0 && prefix != "" {
			return []string{prefix}
		}
	}
	return out
}

func jsonPathEscape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// restoreEmpty puts back, empty, the containers at paths that orig holds
// and want lost (a removal emptied and dropped them).
func restoreEmpty(orig, want *jobj, paths []string) {
	for _, e := range paths {
		p, inner := splitKept(e)
		if p == "" {
			if len(want.keys) == 0 {
				want.inner = inner
			}
			continue
		}
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		o, w := orig, want
		for i, part := range parts {
			k := strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			ov, ok := o.vals[k]
			if !ok {
				break
			}
			if i == len(parts)-1 {
				if _, has := w.vals[k]; !has {
					switch ov.(type) {
					case *jobj:
						n := newObj()
						n.inner = inner
						w.set(k, n)
					case []any:
						w.set(k, []any{})
					}
				} else if n, ok := w.vals[k].(*jobj); ok && len(n.keys) == 0 {
					n.inner = inner
				}
				break
			}
			oc, ok1 := ov.(*jobj)
			if _, has := w.vals[k]; !has && ok1 {
				w.set(k, newObj())
			}
			wc, ok2 := w.vals[k].(*jobj)
			if !ok1 || !ok2 {
				break
			}
			o, w = oc, wc
		}
	}
}
