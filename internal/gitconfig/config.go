package gitconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Config is git's configuration as git-mem reads it: system, global, then the
// repository's own file, later files winning (docs/architecture.md, configuration: settings are git
// config keys such as mem.injectChars). The reader does not follow include
// and includeIf itself: when a file has one (or git -c gave settings to a
// calling git), git-mem's own settings, mem.*, are asked of git, once, so
// that they are what git config --get reads.
type Config struct {
	entries []Entry // every file's, in the order git reads them

	// git lists the settings whose names match a regexp as git reads them,
	// includes followed (git config --includes -z --get-regexp); nil for a
	// repository without a git directory
	git func(pattern string) ([]byte, error)
	// noneSet reports whether an error of git says that no setting matched
	noneSet func(error) bool
	memOnce sync.Once
	mem     []Entry // the mem.* settings as git reads them
	memOK   bool    // mem holds git's answer
}

// memSection is the section of git-mem's own settings.
const memSection = "mem"

// memSettings returns the mem.* settings as git reads them, when git must be
// asked for them (the files have includes the reader does not follow, or
// the environment gives settings); ok is false when the files' own entries
// are the answer.
func (c *Config) memSettings() (entries []Entry, ok bool) {
	if c.git == nil || (!c.HasIncludes() && os.Getenv("GIT_CONFIG_PARAMETERS") == "" && os.Getenv("GIT_CONFIG_COUNT") == "") {
		return nil, false
	}
	c.memOnce.Do(func() {
		out, err := c.git(`^mem\.`)
		if err != nil {
			// exit 1: none is set; anything else (no git, a file git cannot
			// read): the files as the reader read them
			c.memOK = c.noneSet(err)
			return
		}
		for _, entry := range bytes.Split(out, []byte{0}) {
			if k, v, ok := strings.Cut(string(entry), "\n"); ok {
				c.mem = append(c.mem, Entry{Name: k, Value: v})
			} else if len(entry) > 0 {
				c.mem = append(c.mem, Entry{Name: string(entry), Value: "true"}) // a key alone
			}
		}
		c.memOK = true
	})
	return c.mem, c.memOK
}

// Entry is one setting, named as git config --list names it:
// section.subsection.key, the section and the key lower-cased (git
// compares them without case), a quoted subsection as written.
type Entry struct {
	Name, Value string
}

// Load reads the system and global files, then the repository's own config
// file in commonDir ("" for none), as git finds them.
func Load(commonDir string) *Config {
	c := &Config{}
	var paths []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		paths = append(paths, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		paths = append(paths, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		home, _ := os.UserHomeDir()
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			paths = append(paths, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			paths = append(paths, filepath.Join(home, ".gitconfig"))
		}
	}
	if commonDir != "" {
		paths = append(paths, filepath.Join(commonDir, "config"))
	}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			if entries, ok := Parse(data); ok {
				c.entries = append(c.entries, entries...)
			}
		}
	}
	return c
}

// configReader reads a config file a character at a time, as git does:
// CR LF is LF, and the end of the file is one last LF.
type configReader struct {
	data []byte
	pos  int
	eof  bool
}

func (r *configReader) next() byte {
	if r.pos >= len(r.data) {
		r.eof = true
		return '\n'
	}
	c := r.data[r.pos]
	r.pos++
	if c == '\r' && r.pos < len(r.data) && r.data[r.pos] == '\n' {
		c = '\n'
		r.pos++
	}
	return c
}

func (r *configReader) back() { r.pos-- }

// isConfigSpace is git's isspace: its own, which knows no \v or \f.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || (c >= '0' && c <= '9') }

// Parse reads a file in git's config syntax: [section],
// [section "subsection"] (and the old [section.subsection]), key = value
// lines with quotes, escapes and backslash continuations, comments after #
// or ;, and a key alone meaning true. ok is false for a file git would
// refuse, which is then ignored as a whole.
func Parse(data []byte) (entries []Entry, ok bool) {
	r := &configReader{data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))}
	section := ""
	comment := false
	for {
		c := r.next()
		if r.eof {
			return entries, true
		}
		switch {
		case c == '\n':
			comment = false
		case comment || isConfigSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			if section, ok = r.sectionHeader(); !ok {
				return nil, false
			}
		case isAlpha(c):
			r.back()
			e, good := r.setting(section)
			if !good {
				return nil, false
			}
			// git keeps names and values as C strings: a NUL ends them
			e.Name, _, _ = strings.Cut(e.Name, "\x00")
			e.Value, _, _ = strings.Cut(e.Value, "\x00")
			entries = append(entries, e)
		default:
			return nil, false
		}
	}
}

// sectionHeader reads what follows '[': "name]", "name.sub]" (the whole
// lower-cased, as git does) or "name \"sub\"]".
func (r *configReader) sectionHeader() (string, bool) {
	var name []byte
	for {
		c := r.next()
		switch {
		case r.eof:
			return "", false
		case c == ']':
			return strings.ToLower(string(name)), len(name) > 0
		case isConfigSpace(c) && c != '\n':
			return r.subsection(strings.ToLower(string(name)))
		case isAlnum(c) || c == '-' || c == '.':
			name = append(name, c)
		default:
			return "", false
		}
	}
}

// subsection reads the quoted part of [name "sub"] and its ']'.
func (r *configReader) subsection(name string) (string, bool) {
	c := r.next()
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	// an empty name before the subsection is git's too: [ "s"] is ".s"
	if c != '"' {
		return "", false
	}
	sub := []byte(name + ".")
	for {
		c = r.next()
		switch {
		case c == '\n':
			return "", false
		case c == '"':
			return string(sub), r.next() == ']'
		case c == '\\':
			if c = r.next(); c == '\n' {
				return "", false
			}
		}
		sub = append(sub, c)
	}
}

// setting reads "key", "key = value" to the end of its line.
func (r *configReader) setting(section string) (Entry, bool) {
	var key []byte
	c := r.next()
	for isAlnum(c) || c == '-' {
		key = append(key, c)
		c = r.next()
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	name := strings.ToLower(string(key))
	if section != "" {
		name = section + "." + name
	}
	switch c {
	case '\n':
		return Entry{name, "true"}, true
	case '=':
		value, ok := r.value()
		return Entry{name, value}, ok
	}
	return Entry{}, false
}

// value reads a value after its '=', as git does: blanks around it
// dropped and each run inside kept as that many spaces, quoted parts taken
// as they are, \" \\ \n \t \b unescaped, a comment ending it outside quotes,
// and a backslash at the end of a line continuing it on the next.
func (r *configReader) value() (string, bool) {
	var out []byte
	quoted, comment, spaces := false, false, 0
	for {
		c := r.next()
		switch {
		case c == '\n':
			return string(out), !quoted
		case comment:
			continue
		case isConfigSpace(c) && !quoted:
			if len(out) > 0 {
				spaces++
			}
			continue
		case !quoted && (c == '#' || c == ';'):
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			out = append(out, ' ')
		}
		switch c {
		case '\\':
			switch c = r.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			out = append(out, c)
		case '"':
			quoted = !quoted
		default:
			out = append(out, c)
		}
	}
}

// Get returns the last value of section[.subsection].key, or "" when unset.
func (c *Config) Get(section, subsection, key string) string {
	name := strings.ToLower(section) + "."
	if subsection != "" {
		name += subsection + "."
	}
	name += strings.ToLower(key)
	entries := c.entries
	if strings.EqualFold(section, memSection) {
		if mem, ok := c.memSettings(); ok {
			entries = mem
		}
	}
	v := ""
	for _, e := range entries {
		if e.Name == name {
			v = e.Value
		}
	}
	return v
}

// Add appends entries read after the files Load read (a worktree's own
// config.worktree): they win over those.
func (c *Config) Add(entries []Entry) { c.entries = append(c.entries, entries...) }

// Entries are the settings of every file read, in the order git reads them.
func (c *Config) Entries() []Entry { return c.entries }

// AskGit gives the config the way to ask git for the settings matching a
// regexp, includes followed (git config --includes -z --get-regexp), and
// the way to tell git's answer that none is set from a failure.
func (c *Config) AskGit(list func(pattern string) ([]byte, error), noneSet func(error) bool) {
	c.git, c.noneSet = list, noneSet
}

// HasIncludes reports whether a file sets include or includeIf, which this
// reader does not follow.
func (c *Config) HasIncludes() bool {
	for _, e := range c.entries {
		if strings.HasPrefix(e.Name, "include.") || strings.HasPrefix(e.Name, "includeif.") {
			return true
		}
	}
	return false
}

// Int returns section.key as an integer, or def when unset or malformed.
func (c *Config) Int(section, key string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(c.Get(section, "", key))); err == nil {
		return n
	}
	return def
}

// Bool returns section.key as a git boolean (true/yes/on/1, false/no/off/0),
// or def when unset or malformed.
func (c *Config) Bool(section, key string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(c.Get(section, "", key))) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}
