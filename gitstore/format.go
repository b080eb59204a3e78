package gitstore

import (
	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/git-mem/git-mem/memerr"

	"os"
	"path/filepath"
	"strings"
)

// knownExtension reports whether git-mem writes correctly into a repository
// with extensions.<key>=<value>. Git refuses a repository whose extensions
// it does not know; git-mem does the same, so that a format it never heard
// of (a newer git's) gets no object or ref it cannot read.
func knownExtension(key, value string) bool {
	switch key {
	case "objectformat":
		return strings.EqualFold(value, "sha1")
	case "refstorage":
		return strings.EqualFold(value, "files")
	case "noop", "noop-v1", "partialclone", "worktreeconfig", "relativeworktrees":
		// no effect on the objects and refs git-mem writes
		return true
	case "preciousobjects":
		// git-mem adds objects and never deletes one itself
		return true
	}
	return false
}

// checkFormat returns a *memerr.FormatError when the repository at commonDir uses an
// object or ref format git-mem does not write. Git reads the repository's
// format from its own config file only (never a global or included one), and
// refuses any extension in a version-0 repository that needs version 1, so
// every extension set there is taken at its word.
func checkFormat(commonDir string) error {
	data, err := os.ReadFile(filepath.Join(commonDir, "config"))
	if err != nil {
		return nil
	}
	entries, ok := gitconfig.Parse(data)
	if !ok {
		return nil
	}
	// the last value of each key wins, as git reads it; the first unknown
	// key is reported, in the order of the file
	last := map[string]string{}
	var keys []string
	for _, e := range entries {
		key, ok := strings.CutPrefix(e.Name, "extensions.")
		if !ok || strings.Contains(key, ".") {
			continue
		}
		if _, seen := last[key]; !seen {
			keys = append(keys, key)
		}
		last[key] = e.Value
	}
	// the object format first: it is what a user most needs to hear about
	for _, k := range []string{"objectformat", "refstorage"} {
		if v, ok := last[k]; ok && !knownExtension(k, v) {
			return &memerr.FormatError{Dir: commonDir, Extension: k, Value: strings.ToLower(v)}
		}
	}
	for _, k := range keys {
		if !knownExtension(k, last[k]) {
			return &memerr.FormatError{Dir: commonDir, Extension: k, Value: last[k]}
		}
	}
	return nil
}

// InitFormatEnv is the environment that makes git init create a repository
// in the formats git-mem writes (SHA-1 objects, files refs), for the
// repositories git-mem itself creates: the personal store, the demo's.
var InitFormatEnv = []string{"GIT_DEFAULT_HASH=sha1", "GIT_DEFAULT_REF_FORMAT=files"}
