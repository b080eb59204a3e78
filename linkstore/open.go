package linkstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// Linked is a link with its local copy as it is on disk.
type Linked struct {
	Link
	Copy *Copy
}

// Open returns the repository's links with their local copies, reading
// files only (no git process, nothing fetched, nothing created): what a
// hook can afford. A link whose copy was never fetched has a Copy without
// Repo.
func Open(r *gitstore.Repo) ([]Linked, []error) {
	links, bad := Links(r)
	var out []Linked
	for _, l := range links {
		c, err := CopyOf(l.URL)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		out = append(out, Linked{Link: l, Copy: c})
	}
	return out, bad
}

// Unopened returns the repository's links with their local copies' places
// only (Copy.Repo nil): what reading the copies' state needs (ScrubDue),
// without opening their repositories.
func Unopened(r *gitstore.Repo) []Linked {
	links, _ := Links(r)
	root, err := CacheRoot()
	if err != nil {
		return nil
	}
	out := make([]Linked, 0, len(links))
	for _, l := range links {
		out = append(out, Linked{Link: l, Copy: &Copy{URL: l.URL, Dir: filepath.Join(root, Slug(l.URL))}})
	}
	return out
}

// Stores returns the readable stores of the links, in the links' order:
// each copy's refs/memory/main, with the scope "org:NAME". Copies never
// fetched are left out.
func Stores(ls []Linked) []*gitstore.Store {
	var out []*gitstore.Store
	for _, l := range ls {
		if l.Copy == nil || l.Copy.Repo == nil {
			continue
		}
		st := gitstore.NewStore(l.Copy.Repo, gitstore.RefMain, l.Scope())
		st.ReadOnly = !l.Write
		st.IDs = l.Copy.IDs
		out = append(out, st)
	}
	return out
}

// Attach opens the links of the set's repository (Open) and adds their
// stores to the set, read after its own, on the repository's clock (a
// surface sets the git date variables' too). It
// returns the links, for ScrubDue, and the links it left out.
func Attach(set *gitstore.Set) ([]Linked, []error) {
	if set == nil || set.Repo == nil {
		return nil, nil
	}
	ls, bad := Open(set.Repo)
	for _, l := range ls {
		if l.Copy.Repo != nil {
			l.Copy.Repo.Now = set.Repo.Now
		}
	}
	set.Linked = Stores(ls)
	return ls, bad
}

// ScrubDue reports whether a copy of ls purged memories since the
// repository last scrubbed its caches for it: seen is the file in which
// the repository records, per copy, the purge count it scrubbed for
// (MarkScrubbed writes it). A purge in the org store must not leave the
// purged text in the caches of any project that read it.
func ScrubDue(ls []Linked, seen string) bool {
	have := readSeen(seen)
	for _, l := range ls {
		if l.Copy == nil {
			continue
		}
		if n := l.Copy.ReadState().Purges; n > have[Slug(l.URL)] {
			return true
		}
	}
	return false
}

// MarkScrubbed records in seen that the repository's caches were scrubbed
// for every purge the copies of ls have made so far.
func MarkScrubbed(ls []Linked, seen string) error {
	have := readSeen(seen)
	for _, l := range ls {
		if l.Copy != nil {
			have[Slug(l.URL)] = l.Copy.ReadState().Purges
		}
	}
	var b bytes.Buffer
	for k, v := range have {
		b.WriteString(k + " " + strconv.Itoa(v) + "\n")
	}
	return lockfile.WriteAtomic(seen, b.Bytes(), 0o600)
}

func readSeen(path string) map[string]int {
	out := map[string]int{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if n, err := strconv.Atoi(v); ok && err == nil {
			out[k] = n
		}
	}
	return out
}
