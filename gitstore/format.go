package gitstore

import (
	"github.com/git-mem/git-mem/internal/gitconfig"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrUnsupportedFormat: the repository stores its objects or refs in a format
// git-mem cannot write (extensions.objectFormat, extensions.refStorage, or
// another extension git-mem does not know). git-mem opens no such
// repository, so nothing is read from or written into it.
var ErrUnsupportedFormat = errors.New("unsupported repository format")

// FormatError is a repository whose format git-mem does not handle. It is an
// ErrUnsupportedFormat and never an ErrNoRepo: a command run in such a
// repository must fail, not fall back to the personal store as it does
// outside any repository.
type FormatError struct {
	// Dir is the repository's common git directory.
	Dir string
	// Extension is the extensions.* key, lower-cased as git compares it
	// ("objectformat", "refstorage", …), and Value its value.
	Extension, Value string
}

func (e *FormatError) Error() string {
	var what string
	switch e.Extension {
	case "objectformat":
		what = fmt.Sprintf("names its objects with %s (extensions.objectFormat=%s), and git-mem writes SHA-1 objects only", algorithmName(e.Value), e.Value)
	case "refstorage":
		what = fmt.Sprintf("keeps its refs in the %s format (extensions.refStorage=%s), and git-mem writes loose refs and packed-refs only", e.Value, e.Value)
	case "compatobjectformat":
		what = fmt.Sprintf("keeps a second object format (extensions.compatObjectFormat=%s), whose object map git-mem does not maintain", e.Value)
	default:
		what = fmt.Sprintf("sets extensions.%s=%s, which git-mem does not know", e.Extension, e.Value)
	}
	return fmt.Sprintf("%s: the repository at %s %s; git-mem keeps no memory in it and wrote nothing", ErrUnsupportedFormat, e.Dir, what)
}

// algorithmName is an object format as git's documentation spells it.
func algorithmName(format string) string {
	if f, ok := strings.CutPrefix(format, "sha"); ok {
		return "SHA-" + f
	}
	return format
}

// Is makes errors.Is(err, ErrUnsupportedFormat) true.
func (e *FormatError) Is(target error) bool { return target == ErrUnsupportedFormat }

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

// checkFormat returns a *FormatError when the repository at commonDir uses an
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
			return &FormatError{Dir: commonDir, Extension: k, Value: strings.ToLower(v)}
		}
	}
	for _, k := range keys {
		if !knownExtension(k, last[k]) {
			return &FormatError{Dir: commonDir, Extension: k, Value: last[k]}
		}
	}
	return nil
}

// InitFormatEnv is the environment that makes git init create a repository
// in the formats git-mem writes (SHA-1 objects, files refs), for the
// repositories git-mem itself creates: the personal store, the demo's.
var InitFormatEnv = []string{"GIT_DEFAULT_HASH=sha1", "GIT_DEFAULT_REF_FORMAT=files"}
