package gitignore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrUnsupported reports an ignore file read differently by git than by
// this reader, or not readable.
var ErrUnsupported = errors.New("ignore rules not supported")

// ignorePattern is one line of an ignore file.
type ignorePattern struct {
	pattern  string // without '!', the trailing '/' or the leading '/'
	negative bool   // '!': re-includes what an earlier pattern excluded
	dirOnly  bool   // a trailing '/': matches directories only
	basename bool   // no '/' inside: matches a name at any depth
	base     string // directory of the file, relative to the worktree ("" at the top)
}

// parseIgnore reads the patterns of one ignore file whose patterns are
// relative to base.
func parseIgnore(data []byte, base string) ([]ignorePattern, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []ignorePattern
	for _, line := range strings.Split(string(data), "\n") {
		if strings.ContainsAny(line, "\r\x00") {
			// CRLF files, and NUL bytes (which end a pattern in git's C
			// strings): left to git
			return nil, ErrUnsupported
		}
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		p := ignorePattern{base: base}
		if line[0] == '!' {
			p.negative = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = line[:len(line)-1]
		}
		p.basename = !strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		p.pattern = line
		out = append(out, p)
	}
	return out, nil
}

// trimTrailingSpaces drops trailing spaces that no backslash escapes; a
// line ending in a lone backslash keeps everything.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
			continue
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
		}
		lastSpace = -1
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// matches reports whether p matches the worktree-relative path rel.
func (p *ignorePattern) matches(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.basename {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		return wildmatch(p.pattern, name, false)
	}
	if p.base != "" {
		if !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		rel = rel[len(p.base)+1:]
	}
	return wildmatch(p.pattern, rel, true)
}

// Rules are the ignore patterns of a worktree, read as the walk descends:
// a directory's .gitignore is read when the walk enters it.
type Rules struct {
	workTree string
	perDir   map[string][]ignorePattern // by directory, "" for the top
	global   [][]ignorePattern          // info/exclude, then core.excludesFile: first wins
}

// New reads the repository-wide ignore files of the worktree workTree
// whose common git directory is commonDir: info/exclude, then the file
// core.excludesFile names (excludesFile, "" when unset: git's default).
func New(workTree, commonDir, excludesFile string) (*Rules, error) {
	ig := &Rules{workTree: workTree, perDir: map[string][]ignorePattern{}}
	exclude, err := readIgnoreFile(filepath.Join(commonDir, "info", "exclude"), "")
	if err != nil {
		return nil, err
	}
	ig.global = append(ig.global, exclude)
	file := excludesFile
	if file == "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if home, err := os.UserHomeDir(); xdg == "" && err == nil {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			file = filepath.Join(xdg, "git", "ignore")
		}
	} else if rest, ok := strings.CutPrefix(file, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, ErrUnsupported
		}
		file = filepath.Join(home, rest)
	} else if strings.HasPrefix(file, "~") || !filepath.IsAbs(file) {
		return nil, ErrUnsupported // ~user and relative paths: left to git
	}
	if file != "" {
		user, err := readIgnoreFile(file, "")
		if err != nil {
			return nil, err
		}
		ig.global = append(ig.global, user)
	}
	return ig, nil
}

// readIgnoreFile reads one ignore file; a missing file has no patterns.
func readIgnoreFile(path, base string) ([]ignorePattern, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ErrUnsupported
	}
	return parseIgnore(data, base)
}

// Enter reads the .gitignore of dir (worktree-relative, "" for the top).
func (ig *Rules) Enter(dir string) error {
	if _, done := ig.perDir[dir]; done {
		return nil
	}
	p := filepath.Join(ig.workTree, filepath.FromSlash(dir), ".gitignore")
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		ig.perDir[dir] = nil
		return nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return ErrUnsupported // git does not follow a symbolic link here
	}
	pats, err := readIgnoreFile(p, dir)
	if err != nil {
		return err
	}
	ig.perDir[dir] = pats
	return nil
}

// Ignored reports whether the untracked path rel is ignored, its parent
// directories not being ignored: the last matching pattern of the nearest
// .gitignore decides, then those of the directories above, then
// info/exclude, then core.excludesFile.
func (ig *Rules) Ignored(rel string, isDir bool) bool {
	dir := rel
	for {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			dir = ""
		} else {
			dir = dir[:i]
		}
		if p := lastMatch(ig.perDir[dir], rel, isDir); p != nil {
			return !p.negative
		}
		if dir == "" {
			break
		}
	}
	for _, pats := range ig.global {
		if p := lastMatch(pats, rel, isDir); p != nil {
			return !p.negative
		}
	}
	return false
}

func lastMatch(pats []ignorePattern, rel string, isDir bool) *ignorePattern {
	for i := len(pats) - 1; i >= 0; i-- {
		if pats[i].matches(rel, isDir) {
			return &pats[i]
		}
	}
	return nil
}

// wildmatch reports whether text matches the git wildmatch pattern; with
// pathname, '*', '?' and brackets do not match '/', and "**" between
// slashes matches any number of directories.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(text) {
			tc = text[ti]
		}
		switch pc {
		case '\\':
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := !pathname
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if pathname {
					rest := p[pi:]
					if (prev < 0 || p[prev] == '/') && (rest == "" || rest[0] == '/' || strings.HasPrefix(rest, "\\/")) {
						if rest != "" && rest[0] == '/' && dowild(rest[1:], text[ti:], pathname) == wmMatch {
							return wmMatch
						}
						matchSlash = true
					}
				}
			}
			if pi >= len(p) {
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash // the loop matches the slash itself
				continue
			}
			for ti < len(text) {
				m := dowild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			end, matched, ok := matchBracket(p, pi, tc)
			if !ok {
				return wmAbortAll
			}
			if !matched || pathname && tc == '/' {
				return wmNoMatch
			}
			pi = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchBracket matches tc against the bracket expression that opens at
// p[pi]: end is the index of its closing ']', in whether tc is in it (its
// negation applied), and ok false when the pattern ends inside it, which
// makes the whole pattern fail.
func matchBracket(p string, pi int, tc byte) (end int, in, ok bool) {
	pi++
	if pi >= len(p) {
		return 0, false, false
	}
	c := p[pi]
	negated := false
	if c == '^' || c == '!' {
		negated = true
		pi++
		if pi >= len(p) {
			return 0, false, false
		}
		c = p[pi]
	}
	var prev byte
	matched := false
	for {
		switch {
		case c == '\\':
			pi++
			if pi >= len(p) {
				return 0, false, false
			}
			c = p[pi]
			if tc == c {
				matched = true
			}
		case c == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
			pi++
			c = p[pi]
			if c == '\\' {
				pi++
				if pi >= len(p) {
					return 0, false, false
				}
				c = p[pi]
			}
			if tc <= c && tc >= prev {
				matched = true
			}
			c = 0 // a range is no start of the next
		case c == '[' && pi+1 < len(p) && p[pi+1] == ':':
			end := strings.IndexByte(p[pi+2:], ']')
			if end < 0 {
				return 0, false, false
			}
			if end < 1 || p[pi+2+end-1] != ':' {
				// no ":]": the '[' is itself
				if tc == '[' {
					matched = true
				}
				break
			}
			in, ok := inClass(p[pi+2:pi+2+end-1], tc)
			if !ok {
				return 0, false, false
			}
			matched = matched || in
			pi += 2 + end // on the class's ']'
			c = 0
		default:
			if tc == c {
				matched = true
			}
		}
		prev = c
		pi++
		if pi >= len(p) {
			return 0, false, false
		}
		c = p[pi]
		if c == ']' {
			break
		}
	}
	return pi, matched != negated, true
}

// inClass reports whether c is in the POSIX class name; ok is false for a
// name git does not know.
func inClass(name string, c byte) (in, ok bool) {
	lower := c >= 'a' && c <= 'z'
	upper := c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !lower && !upper && !digit, true
	case "space":
		return c == ' ' || c >= '\t' && c <= '\r', true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}
