package gitstore

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// gitstore encodes and decodes the commits and trees it writes itself:
// go-git's object package would link an OpenPGP implementation (for
// signature checks gitstore never makes) into every git-mem process and
// initialize it at each start. See docs/architecture.md, storage.

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// gitTree is a tree object: its hash and its entries in git's order.
type gitTree struct {
	Hash    plumbing.Hash
	Entries []treeEntry
}

// signature is a commit's author or committer.
type signature struct {
	Name, Email string
	When        time.Time
}

// gitCommit is the part of a commit object gitstore reads and writes.
// Headers it does not know (a signature, an encoding) are read past and
// not written.
type gitCommit struct {
	Hash         plumbing.Hash
	TreeHash     plumbing.Hash
	ParentHashes []plumbing.Hash
	Author       signature
	Committer    signature
	Message      string
}

// sortTreeEntries puts entries in git's order: by name, a tree's name
// compared as if it ended with "/".
func sortTreeEntries(entries []treeEntry) {
	sort.Slice(entries, func(i, j int) bool { return sortName(&entries[i]) < sortName(&entries[j]) })
}

// encodeTree writes a tree object's content; entries must be in git's
// order.
func encodeTree(entries []treeEntry) ([]byte, error) {
	var b bytes.Buffer
	for i := range entries {
		e := &entries[i]
		if e.Name == "" || strings.IndexByte(e.Name, 0) >= 0 || strings.IndexByte(e.Name, '/') >= 0 {
			return nil, fmt.Errorf("%w: tree entry name %q", ErrInvalid, e.Name)
		}
		if i > 0 && sortName(&entries[i-1]) >= sortName(e) {
			return nil, fmt.Errorf("%w: tree entries out of order at %q", ErrInvalid, e.Name)
		}
		b.WriteString(strconv.FormatUint(uint64(e.Mode), 8))
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash[:])
	}
	return b.Bytes(), nil
}

// encode writes a commit object's content as git does.
func (c *gitCommit) encode() []byte {
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

func (s *signature) encode(b *bytes.Buffer) {
	u := max(s.When.Unix(), 0)
	fmt.Fprintf(b, "%s <%s> %d %s", s.Name, s.Email, u, s.When.Format("-0700"))
}

// decodeCommit reads a commit object's content.
func decodeCommit(h plumbing.Hash, data []byte) (*gitCommit, error) {
	c := &gitCommit{Hash: h}
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
			if !plumbing.IsHash(string(value)) {
				return nil, fmt.Errorf("%w: commit %s has a bad tree %q", ErrCorrupt, h, value)
			}
			c.TreeHash, seenTree = plumbing.NewHash(string(value)), true
		case "parent":
			if !plumbing.IsHash(string(value)) {
				return nil, fmt.Errorf("%w: commit %s has a bad parent %q", ErrCorrupt, h, value)
			}
			c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(string(value)))
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
		return nil, fmt.Errorf("%w: commit %s names no tree", ErrCorrupt, h)
	}
	c.Message = string(data)
	return c, nil
}

// decodeSignature reads "Name <email> seconds +hhmm"; what it cannot read
// is left zero.
func decodeSignature(b []byte) signature {
	var s signature
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
