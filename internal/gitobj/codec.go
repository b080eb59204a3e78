package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// git-mem encodes and decodes the commits and trees it writes itself:
// go-git's object package would link an OpenPGP implementation (for
// signature checks git-mem never makes) into every git-mem process and
// initialize it at each start. See docs/architecture.md, storage.

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode FileMode
	Hash Hash
}

// Tree is a tree object: its hash and its entries in git's order.
type Tree struct {
	Hash    Hash
	Entries []TreeEntry
}

// Signature is a commit's author or committer.
type Signature struct {
	Name, Email string
	When        time.Time
}

// Commit is the part of a commit object git-mem reads and writes.
// Headers it does not know (a signature, an encoding) are read past and
// not written.
type Commit struct {
	Hash         Hash
	TreeHash     Hash
	ParentHashes []Hash
	Author       Signature
	Committer    Signature
	Message      string
}

// SortName is the name git orders a tree's entries by: a tree's name
// compared as if it ended with "/".
func SortName(e *TreeEntry) string {
	if e.Mode == ModeDir {
		return e.Name + "/"
	}
	return e.Name
}

// SortTreeEntries puts entries in git's order: by name, a tree's name
// compared as if it ended with "/".
func SortTreeEntries(entries []TreeEntry) {
	sort.Slice(entries, func(i, j int) bool { return SortName(&entries[i]) < SortName(&entries[j]) })
}

// EncodeTree writes a tree object's content; entries must be in git's
// order.
func EncodeTree(entries []TreeEntry) ([]byte, error) {
	var b bytes.Buffer
	for i := range entries {
		e := &entries[i]
		if e.Name == "" || strings.IndexByte(e.Name, 0) >= 0 || strings.IndexByte(e.Name, '/') >= 0 {
			return nil, fmt.Errorf("tree entry name %q", e.Name)
		}
		if i > 0 && SortName(&entries[i-1]) >= SortName(e) {
			return nil, fmt.Errorf("tree entries out of order at %q", e.Name)
		}
		b.WriteString(strconv.FormatUint(uint64(e.Mode), 8))
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash[:])
	}
	return b.Bytes(), nil
}

// Encode writes a commit object's content as git does.
func (c *Commit) Encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.TreeHash)
	for _, p := range c.ParentHashes {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	b.WriteString("author ")
	c.Author.encode(&b)
	b.WriteString("\ncommitter ")
	c.Committer.encode(&b)
	b.WriteString("\n\n")
	b.WriteString(c.Message)
	return b.Bytes()
}

func (s *Signature) encode(b *bytes.Buffer) {
	u := max(s.When.Unix(), 0)
	fmt.Fprintf(b, "%s <%s> %d %s", s.Name, s.Email, u, s.When.Format("-0700"))
}

// DecodeCommit reads the content of the commit object h.
func DecodeCommit(h Hash, data []byte) (*Commit, error) {
	c := &Commit{Hash: h}
	seenTree, seenAuthor, seenCommitter := false, false, false
	for {
		var line []byte
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			line, data = data, nil // headers and no message, as go-git reads it
		}
		if len(line) == 0 {
			break // the message follows
		}
		if line[0] == ' ' {
			continue // a continued header (a signature's lines)
		}
		key, value, _ := bytes.Cut(line, []byte(" "))
		switch string(key) {
		case "tree":
			tree, ok := parseHexHash(value)
			if !ok {
				return nil, fmt.Errorf("commit %s has a bad tree %q", h, value)
			}
			c.TreeHash, seenTree = tree, true
		case "parent":
			parent, ok := parseHexHash(value)
			if !ok {
				return nil, fmt.Errorf("commit %s has a bad parent %q", h, value)
			}
			c.ParentHashes = append(c.ParentHashes, parent)
		case "author": // the first, as git reads it
			if !seenAuthor {
				c.Author, seenAuthor = decodeSignature(value), true
			}
		case "committer":
			if !seenCommitter {
				c.Committer, seenCommitter = decodeSignature(value), true
			}
		}
		if data == nil {
			break
		}
	}
	if !seenTree {
		return nil, fmt.Errorf("commit %s names no tree", h)
	}
	c.Message = string(data)
	return c, nil
}

// decodeSignature reads "Name <email> seconds +hhmm"; what it cannot read
// is left zero.
func decodeSignature(b []byte) Signature {
	var s Signature
	open, closing := bytes.LastIndexByte(b, '<'), bytes.LastIndexByte(b, '>')
	if open < 0 || closing < open {
		return s
	}
	s.Name = string(bytes.Trim(b[:open], " "))
	s.Email = string(b[open+1 : closing])
	rest := strings.Fields(string(b[closing+1:]))
	if len(rest) == 0 {
		return s
	}
	secs, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil {
		return s
	}
	s.When = time.Unix(secs, 0).In(time.UTC)
	if len(rest) > 1 && len(rest[1]) == 5 && (rest[1][0] == '+' || rest[1][0] == '-') {
		hh, err1 := strconv.Atoi(rest[1][1:3])
		mm, err2 := strconv.Atoi(rest[1][3:5])
		if err1 == nil && err2 == nil {
			offset := hh*3600 + mm*60
			if rest[1][0] == '-' {
				offset = -offset
			}
			s.When = s.When.In(time.FixedZone("", offset))
		}
	}
	return s
}

// errBadTree is a tree object that is not in git's format.
var errBadTree = errors.New("malformed tree object")

// DecodeTree parses a tree's content: entries of "MODE NAME\x00" and a
// 20-byte hash, as git writes them.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	entries := make([]TreeEntry, 0, len(data)/48+1)
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, errBadTree
		}
		mode, err := parseMode(string(data[:sp]))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errBadTree, err)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul <= 0 || len(data) < nul+1+len(zeroHash) {
			return nil, errBadTree
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: mode}
		copy(e.Hash[:], data[nul+1:])
		entries = append(entries, e)
		data = data[nul+1+len(zeroHash):]
	}
	return entries, nil
}

// parseHexHash reads a hash in hex as go-git reads one: 40 hex digits, of
// either case.
func parseHexHash(b []byte) (Hash, bool) {
	if !plumbing.IsHash(string(b)) {
		return zeroHash, false
	}
	return Hash(plumbing.NewHash(string(b))), true
}
