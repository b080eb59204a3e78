package gitstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Git points a process at other object directories through the
// environment: GIT_OBJECT_DIRECTORY replaces <common dir>/objects, and
// GIT_ALTERNATE_OBJECT_DIRECTORIES adds databases to read from. A
// pre-receive hook runs so: the objects of the push it judges wait in a
// quarantine directory (GIT_QUARANTINE_PATH, which GIT_OBJECT_DIRECTORY
// names), the repository's own objects are an alternate, and a reader that
// looks only in <common dir>/objects finds none of what was pushed.

// UseObjectEnvironment reads objects from the directories git's
// environment names, as git does: getenv's GIT_OBJECT_DIRECTORY instead of
// the repository's objects directory, and each directory of
// GIT_ALTERNATE_OBJECT_DIRECTORIES (a list split as PATH is, an entry
// quoted when it holds the separator) before the alternates the objects
// directory lists. Relative paths are taken from cwd. Unset variables
// leave the repository as it was opened.
func (r *Repo) UseObjectEnvironment(getenv func(string) string, cwd string) {
	if r.CommonDir == "" || getenv == nil {
		return
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	dir := getenv("GIT_OBJECT_DIRECTORY")
	alts := splitAlternates(getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"))
	if dir == "" && len(alts) == 0 {
		return
	}
	if dir != "" {
		r.objectDir = abs(dir)
	}
	r.extraAlternates = nil
	for _, a := range alts {
		r.extraAlternates = append(r.extraAlternates, abs(a))
	}
	r.reopenObjects()
}

// splitAlternates splits GIT_ALTERNATE_OBJECT_DIRECTORIES as git does:
// entries separated by the path list separator, an entry starting with a
// double quote read as a C-quoted string (git quotes one that holds the
// separator), empty entries skipped.
func splitAlternates(list string) []string {
	var out []string
	for list != "" {
		var entry string
		if list[0] == '"' {
			end := closingQuote(list)
			if end < 0 {
				entry, list = list, ""
			} else {
				q := list[:end+1]
				list = strings.TrimPrefix(list[end+1:], string(os.PathListSeparator))
				if u, err := strconv.Unquote(q); err == nil {
					entry = u
				} else {
					entry = strings.Trim(q, `"`)
				}
			}
		} else {
			var found bool
			entry, list, found = strings.Cut(list, string(os.PathListSeparator))
			if !found {
				list = ""
			}
		}
		if entry != "" {
			out = append(out, entry)
		}
	}
	return out
}

// closingQuote is the index of the double quote that ends the quoted
// string s starts with, -1 when none does.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
