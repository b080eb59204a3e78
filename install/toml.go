package install

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/git-mem/git-mem/memerr"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml is edited as surgery too: the file is parsed with
// go-toml's position-keeping parser, so tables and keys are found where the
// parser says they are (a multi-line string holding a line like
// [mcp_servers.git-mem] is a string, not a table), and the edit splices
// text at those positions. git-mem's MCP server table is appended after a
// blank line and a marker comment; a re-install changes its command in
// place and keeps what the user added or changed (env, args after "mcp",
// other keys, subtables); uninstall cuts exactly what install appended.

const tomlMarker = "# git-mem MCP server (managed by git mem install)"

// tomlKV is one key = value line.
type tomlKV struct {
	key []string // relative to its table
	// start and end are the expression's line range (end: after its newline).
	start, end int
	// valStart and valEnd are the value's bytes.
	valStart, valEnd int
	kind             unstable.Kind
	str              string   // a string value
	strs             []string // an array's string elements, in order
}

// tomlTable is one [table] or [[table]] with the key-values under it.
type tomlTable struct {
	key   []string
	array bool
	// start is the first line of the comments right above the header (no
	// blank line between), header the header line's start, end the start
	// of the next table's comments (or the end of the file).
	start, header, end int
	kvs                []tomlKV
}

// tomlDoc is a parsed config.toml. The root table (keys before any header)
// is tables[0] with an empty key.
type tomlDoc struct {
	data   []byte
	tables []tomlTable
}

func parseTOML(data []byte) (*tomlDoc, error) {
	d := &tomlDoc{data: data, tables: []tomlTable{{start: 0, header: 0}}}
	p := &unstable.Parser{KeepComments: true}
	p.Reset(data)
	// comments: start offset of the run of comment lines just seen (-1: none)
	commentRun, lastEnd := -1, 0
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Comment:
			// a run of comment lines with no blank line between
			ls := lineStart(data, int(e.Raw.Offset))
			if commentRun < 0 || ls != lastEnd {
				commentRun = ls
			}
			lastEnd = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
			continue
		case unstable.Table, unstable.ArrayTable:
			var key []string
			first := -1
			it := e.Key()
			for it.Next() {
				k := it.Node()
				if first < 0 {
					first = int(k.Raw.Offset)
				}
				key = append(key, string(k.Data))
			}
			header := lineStart(data, first)
			start := header
			if commentRun >= 0 && commentRun < header && lastEnd == header {
				start = commentRun
			}
			d.tables[len(d.tables)-1].end = start
			end := lineEnd(data, first)
			// the header's own line may go on after the key (] and a comment)
			d.tables = append(d.tables, tomlTable{key: key, array: e.Kind == unstable.ArrayTable, start: start, header: header, end: len(data)})
			lastEnd = end
		case unstable.KeyValue:
			kv := tomlKV{start: lineStart(data, int(e.Raw.Offset)), end: lineEnd(data, int(e.Raw.Offset+e.Raw.Length))}
			it := e.Key()
			keyEnd := 0
			for it.Next() {
				k := it.Node()
				kv.key = append(kv.key, string(k.Data))
				keyEnd = int(k.Raw.Offset + k.Raw.Length)
			}
			eq := bytes.IndexByte(data[keyEnd:], '=')
			kv.valStart = keyEnd + eq + 1
			for kv.valStart < len(data) && (data[kv.valStart] == ' ' || data[kv.valStart] == '\t') {
				kv.valStart++
			}
			kv.valEnd = int(e.Raw.Offset + e.Raw.Length)
			v := e.Value()
			kv.kind = v.Kind
			switch v.Kind {
			case unstable.String:
				kv.str = string(v.Data)
			case unstable.Array:
				for c := v.Children(); c.Next(); {
					if c.Node().Kind == unstable.String {
						kv.strs = append(kv.strs, string(c.Node().Data))
					} else {
						kv.strs = append(kv.strs, "\x00")
					}
				}
			}
			t := &d.tables[len(d.tables)-1]
			t.kvs = append(t.kvs, kv)
			lastEnd = kv.end
		}
		commentRun = -1
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	d.tables[len(d.tables)-1].end = len(data)
	return d, nil
}

// lineStart is the offset of the start of the line holding offset i.
func lineStart(data []byte, i int) int {
	return bytes.LastIndexByte(data[:i], '\n') + 1
}

// lineEnd is the offset after the newline ending the line holding offset i.
func lineEnd(data []byte, i int) int {
	if nl := bytes.IndexByte(data[i:], '\n'); nl >= 0 {
		return i + nl + 1
	}
	return len(data)
}

func (t *tomlTable) kv(key ...string) *tomlKV {
	for i := range t.kvs {
		if slices.Equal(t.kvs[i].key, key) {
			return &t.kvs[i]
		}
	}
	return nil
}

// hasPrefix reports whether key starts with prefix.
func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && slices.Equal(key[:len(prefix)], prefix)
}

// tomlServerCommand reads an MCP server table's command and args.
func (t *tomlTable) serverCommand() (cmd string, args []string) {
	if kv := t.kv("command"); kv != nil {
		cmd = kv.str
	}
	if kv := t.kv("args"); kv != nil {
		args = kv.strs
	}
	return cmd, args
}

func isOwnServerCommand(name, cmd string, args []string) bool {
	if name == MCPServerName {
		return true
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	base := strings.TrimSuffix(cmd[strings.LastIndexAny(cmd, `/\`)+1:], ".exe")
	return base == "git-mem" && arg(0) == "mcp" || base == "git" && arg(0) == "mem" && arg(1) == "mcp"
}

// ownServers names the [mcp_servers.NAME] tables that run git-mem's MCP
// server, in file order.
func (d *tomlDoc) ownServers() []string {
	var out []string
	for i := range d.tables {
		t := &d.tables[i]
		if len(t.key) != 2 || t.key[0] != "mcp_servers" || t.array {
			continue
		}
		cmd, args := t.serverCommand()
		if isOwnServerCommand(t.key[1], cmd, args) && !slices.Contains(out, t.key[1]) {
			out = append(out, t.key[1])
		}
	}
	return out
}

// inlineServer reports a git-mem server written as keys of another table
// (mcp_servers.git-mem.command = … or git-mem = { … } under [mcp_servers]),
// which install does not rewrite.
func (d *tomlDoc) inlineServer() bool {
	for _, t := range d.tables {
		for _, kv := range t.kvs {
			full := append(slices.Clone(t.key), kv.key...)
			if len(t.key) < 2 && hasPrefix(full, []string{"mcp_servers", MCPServerName}) {
				return true
			}
		}
	}
	return false
}

// cut removes the bytes of the tables whose key starts with one of
// prefixes (and the comments right above them); a cut that ends the file
// also takes the blank line that separated it from what comes before.
func (d *tomlDoc) cut(match func(t *tomlTable) bool) []byte {
	type span struct{ start, end int }
	var spans []span
	for i := 1; i < len(d.tables); i++ {
		t := &d.tables[i]
		if !match(t) {
			continue
		}
		start := t.start
		// the comments above git-mem's table start at its marker: a comment
		// of the user's right above the marker (a file that did not end
		// with a line break) is theirs
		if m := bytes.Index(d.data[t.start:t.header], []byte(tomlMarker)); m > 0 && d.data[t.start+m-1] == '\n' {
			start = t.start + m
		}
		if n := len(spans); n > 0 && spans[n-1].end == start {
			spans[n-1].end = t.end
		} else {
			spans = append(spans, span{start, t.end})
		}
	}
	if n := len(spans); n > 0 {
		// a cut that ends the file also takes the line break appendBlock
		// put before the block: a blank line, or the break alone after a
		// file that did not end with one
		if s := &spans[n-1]; s.end == len(d.data) && s.start >= 1 && d.data[s.start-1] == '\n' {
			s.start--
		}
	}
	var out []byte
	at := 0
	for _, s := range spans {
		out = append(out, d.data[at:s.start]...)
		at = s.end
	}
	return append(out, d.data[at:]...)
}

// appendBlock adds block (whole lines) at the end of data, after a line break.
func appendBlock(data []byte, block string) []byte {
	out := slices.Clone(data)
	if len(bytes.TrimSpace(out)) == 0 {
		return []byte(block)
	}
	// one line break before the block: a blank line after a file that ends
	// with a line break, the missing break alone after one that does not
	// (the cut of an uninstall takes exactly that break back)
	out = append(out, '\n')
	return append(out, block...)
}

// splice replaces data[start:end] with s.
func splice(data []byte, start, end int, s string) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(s))
	out = append(out, data[:start]...)
	out = append(out, s...)
	return append(out, data[end:]...)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlInvalid(err error) error {
	return fmt.Errorf("%w: not valid TOML (%v); fix the file, then run again", memerr.ErrInvalid, err)
}

// tomlSetMCP puts git-mem's MCP server into a config.toml: an existing one
// is updated in place (its command; args when they no longer run the MCP
// server), copies under other names are removed, and a missing one is
// appended.
func tomlSetMCP(old []byte, o InstallOptions) ([]byte, error) {
	d, err := parseTOML(old)
	if err != nil {
		return nil, tomlInvalid(err)
	}
	if d.inlineServer() {
		return nil, fmt.Errorf("%w: the %s MCP server is written as keys of another table; change it by hand, or remove it and run again", memerr.ErrInvalid, MCPServerName)
	}
	if d.serversInline() {
		return nil, fmt.Errorf("%w: mcp_servers is written as an inline table (mcp_servers = { … }), which TOML does not let git-mem add a [mcp_servers.%s] table to; write it as [mcp_servers.NAME] tables, or add git-mem's server to it by hand, then run again", memerr.ErrInvalid, MCPServerName)
	}
	out, err := tomlSetMCPIn(d, old, o)
	if err != nil {
		return nil, err
	}
	// the safety net of every edit: what was valid TOML stays valid
	var check map[string]any
	if err := toml.Unmarshal(out, &check); err != nil {
		return nil, fmt.Errorf("%w: adding git-mem's MCP server would make the file invalid TOML (%v); add it by hand, then run again", memerr.ErrInvalid, err)
	}
	return out, nil
}

// serversInline reports mcp_servers defined as a value of the top-level
// table (mcp_servers = { … }, or dotted keys mcp_servers.x.command = …):
// a [mcp_servers.…] table after it would define it twice.
func (d *tomlDoc) serversInline() bool {
	for _, kv := range d.tables[0].kvs {
		if len(kv.key) > 0 && kv.key[0] == "mcp_servers" && !(len(kv.key) > 1 && kv.key[1] == MCPServerName) {
			return true
		}
	}
	return false
}

func tomlSetMCPIn(d *tomlDoc, old []byte, o InstallOptions) ([]byte, error) {
	var err error
	own := d.ownServers()
	if len(own) == 0 {
		block := tomlMarker + "\n[mcp_servers." + MCPServerName + "]\ncommand = " + tomlString(binaryOr(o.Binary)) + "\nargs = [\"mcp\"]\n"
		return appendBlock(old, block), nil
	}
	keep := own[0]
	if slices.Contains(own, MCPServerName) {
		keep = MCPServerName
	}
	if len(own) > 1 {
		old = d.cut(func(t *tomlTable) bool {
			return len(t.key) >= 2 && t.key[0] == "mcp_servers" && t.key[1] != keep && slices.Contains(own, t.key[1])
		})
		if d, err = parseTOML(old); err != nil {
			return nil, tomlInvalid(err)
		}
	}
	for i := range d.tables {
		t := &d.tables[i]
		if !slices.Equal(t.key, []string{"mcp_servers", keep}) || t.array {
			continue
		}
		cmd, args := t.serverCommand()
		wasOurs := strings.TrimSuffix(cmd[strings.LastIndexAny(cmd, `/\`)+1:], ".exe") == "git-mem"
		argsOK := wasOurs && len(args) > 0 && args[0] == "mcp"
		want := tomlString(binaryOr(o.Binary))
		out := old
		// from the end of the table backwards, so offsets stay valid
		ckv, akv := t.kv("command"), t.kv("args")
		type edit struct {
			start, end int
			s          string
		}
		var edits []edit
		if ckv == nil {
			edits = append(edits, edit{lineEnd(out, t.header), lineEnd(out, t.header), "command = " + want + "\n"})
		} else if string(out[ckv.valStart:ckv.valEnd]) != want && ckv.str != binaryOr(o.Binary) {
			edits = append(edits, edit{ckv.valStart, ckv.valEnd, want})
		}
		switch {
		case akv == nil:
			at := lineEnd(out, t.header)
			if ckv != nil {
				at = ckv.end
			}
			edits = append(edits, edit{at, at, "args = [\"mcp\"]\n"})
		case !argsOK:
			edits = append(edits, edit{akv.valStart, akv.valEnd, `["mcp"]`})
		}
		slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
		for _, e := range edits {
			out = splice(out, e.start, e.end, e.s)
		}
		return out, nil
	}
	return old, nil
}

// tomlRemoveMCP removes git-mem's MCP server tables and their subtables
// (with the marker and the comments right above them); nil when nothing
// else is left.
func tomlRemoveMCP(old []byte) ([]byte, error) {
	d, err := parseTOML(old)
	if err != nil {
		return nil, tomlInvalid(err)
	}
	own := d.ownServers()
	if len(own) == 0 {
		return old, nil
	}
	out := d.cut(func(t *tomlTable) bool {
		return len(t.key) >= 2 && t.key[0] == "mcp_servers" && slices.Contains(own, t.key[1])
	})
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	return out, nil
}

// tomlServers lists the commands of git-mem's MCP servers in a config.toml.
func tomlServers(data []byte) []string {
	d, err := parseTOML(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range d.ownServers() {
		for i := range d.tables {
			if t := &d.tables[i]; slices.Equal(t.key, []string{"mcp_servers", name}) {
				cmd, _ := t.serverCommand()
				out = append(out, cmd)
			}
		}
	}
	return out
}
