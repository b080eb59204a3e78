package gitworktree

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/git-mem/git-mem/internal/gitignore"
	"github.com/git-mem/git-mem/internal/gitobj"
)

// A session-start hook must know which files the worktree is changing, and
// git status, a process of its own, is then the longest part of the hook.
// Most sessions start in a clean worktree, which can be proven from files
// alone, as git status proves it: the index matches HEAD (its cached root
// tree is HEAD's tree), every tracked file has the size, times and inode
// the index recorded (and was not written in the same instant as the
// index, which git would read again), and every untracked file is ignored.
// Anything this proof does not cover (a submodule, a sparse checkout, a
// split index, a racy timestamp, ignore rules it cannot read as git does,
// a large worktree) is left to git status.

// ErrUnproven: the worktree is changed, or the proof could not tell.
var ErrUnproven = errors.New("the worktree is not provably clean")

// Bounds of the proof: past them git status, which stats files on several
// threads, is the quicker, and a proof that finds a change has cost its
// time before git status runs (figures in docs/architecture.md).
const (
	MaxEntries = 500  // tracked files
	maxVisits  = 5000 // directory entries read
)

// Repo is what the proof reads of a repository.
type Repo struct {
	WorkTree, GitDir, CommonDir string
	Config                      *gitconfig.Config
	// HeadTree is the tree of HEAD's commit; ok is false on an unborn
	// branch or when HEAD cannot be read.
	HeadTree func() (tree gitobj.Hash, ok bool)
}

// ProveClean proves that the worktree of r has nothing git status would
// list; an error means changed or not proven.
func ProveClean(ctx context.Context, r Repo) error {
	p, err := startProof(r)
	if err != nil {
		return err
	}
	return p.run(ctx)
}

// proof is a proof under way: the index read and matched to HEAD.
type proof struct {
	r         Repo
	idx       *indexFile
	indexTime [2]int64 // the index file's modification time
}

// startProof reads the index and checks it against HEAD and the settings
// the proof relies on.
func startProof(r Repo) (*proof, error) {
	if r.WorkTree == "" || r.GitDir == "" || r.Config == nil {
		return nil, ErrUnproven
	}
	// settings that could make git ignore fewer files than this reader
	// would, or read another index
	for _, v := range []string{"GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		if os.Getenv(v) != "" {
			return nil, ErrUnproven
		}
	}
	cfg := r.Config
	// (settings under which git compares less, such as core.trustCtime or
	// core.fileMode, only make the proof stricter than git)
	if cfg.HasIncludes() ||
		cfg.Bool("extensions", "worktreeConfig", false) ||
		cfg.Get("extensions", "", "objectFormat") != "" && !strings.EqualFold(cfg.Get("extensions", "", "objectFormat"), "sha1") {
		return nil, ErrUnproven
	}
	indexPath := filepath.Join(r.GitDir, "index")
	ist, err := statFile(indexPath, false)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(indexPath)
	if err != nil {
		return nil, ErrUnproven
	}
	idx, err := parseIndex(data)
	if err != nil {
		return nil, err
	}
	if len(idx.entries) > MaxEntries || !idx.rootValid || idx.rootCount != len(idx.entries) {
		return nil, ErrUnproven
	}
	tree, ok := r.HeadTree()
	if !ok || tree != idx.rootTree {
		return nil, ErrUnproven
	}
	return &proof{r: r, idx: idx, indexTime: ist.mtime}, nil
}

// run looks for untracked files and checks the tracked ones; it gives up
// when ctx is done.
func (p *proof) run(ctx context.Context) error {
	tracked := make(map[string]bool, len(p.idx.entries))
	for i := range p.idx.entries {
		tracked[p.idx.entries[i].name] = true
	}
	// the walk first: a new file, the likeliest change, ends it soonest
	ig, err := gitignore.New(p.r.WorkTree, p.r.CommonDir, p.r.Config.Get("core", "", "excludesFile"))
	if err != nil {
		return err
	}
	w := &untrackedWalk{ctx: ctx, root: p.r.WorkTree, tracked: tracked, ig: ig}
	if err := w.dir(""); err != nil {
		return err
	}
	for i := range p.idx.entries {
		if i%64 == 0 && ctx.Err() != nil {
			return ErrUnproven
		}
		if err := p.idx.entries[i].matchesFile(p.r.WorkTree, p.indexTime); err != nil {
			return err
		}
	}
	return nil
}

// indexEntry is one entry of the index file, with the stat data git
// recorded for it (truncated to 32 bits, as the file stores it).
type indexEntry struct {
	ctimeS, ctimeNs, mtimeS, mtimeNs uint32
	ino, mode, uid, gid, size        uint32
	flags, extFlags                  uint16
	name                             string
}

// indexFile is what the proof reads of the index.
type indexFile struct {
	entries   []indexEntry
	rootValid bool // the cached root tree is valid
	rootCount int  // entries it covers
	rootTree  gitobj.Hash
}

// Index entry flags.
const (
	indexAssumeValid  = 0x8000
	indexExtended     = 0x4000
	indexStageMask    = 0x3000
	indexNameMask     = 0x0fff
	indexSkipWorktree = 0x4000 // extended flags
	indexIntentToAdd  = 0x2000
)

// parseIndex reads git's index file, versions 2 to 4, with its cached tree
// extension. Required extensions it does not know (a split or sparse
// index) make it fail; so do entries the proof cannot check.
func parseIndex(data []byte) (*indexFile, error) {
	be := binary.BigEndian
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, ErrUnproven
	}
	version := be.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, ErrUnproven
	}
	n := int(be.Uint32(data[8:]))
	end := len(data) - 20 // the trailing checksum
	if n > MaxEntries {
		return nil, ErrUnproven
	}
	idx := &indexFile{entries: make([]indexEntry, 0, n)}
	off := 12
	prev := ""
	for i := 0; i < n; i++ {
		start := off
		if off+62 > end {
			return nil, ErrUnproven
		}
		u := func(k int) uint32 { return be.Uint32(data[off+4*k:]) }
		e := indexEntry{
			ctimeS: u(0), ctimeNs: u(1), mtimeS: u(2), mtimeNs: u(3),
			ino: u(5), mode: u(6), uid: u(7), gid: u(8), size: u(9),
		}
		off += 40 + 20
		e.flags = be.Uint16(data[off:])
		off += 2
		if e.flags&indexExtended != 0 {
			if version < 3 || off+2 > end {
				return nil, ErrUnproven
			}
			e.extFlags = be.Uint16(data[off:])
			off += 2
		}
		if version == 4 {
			strip, k := indexVarint(data[off:end])
			if k == 0 || strip > uint64(len(prev)) {
				return nil, ErrUnproven
			}
			off += k
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return nil, ErrUnproven
			}
			e.name = prev[:len(prev)-int(strip)] + string(data[off:off+nul])
			off += nul + 1
		} else {
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return nil, ErrUnproven
			}
			e.name = string(data[off : off+nul])
			// entries are padded with 1 to 8 NULs to a multiple of 8 bytes
			off = start + (off-start+nul+8)&^7
			if off > end {
				return nil, ErrUnproven
			}
		}
		prev = e.name
		if e.flags&indexStageMask != 0 || e.extFlags&(indexSkipWorktree|indexIntentToAdd) != 0 {
			return nil, ErrUnproven // conflicts, sparse or new entries
		}
		idx.entries = append(idx.entries, e)
	}
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(be.Uint32(data[off+4:]))
		off += 8
		if size < 0 || off+size > end {
			return nil, ErrUnproven
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, ErrUnproven // a required extension: split or sparse index
		}
		if sig == "TREE" {
			if err := idx.readRootTree(data[off : off+size]); err != nil {
				return nil, err
			}
		}
		off += size
	}
	if off != end {
		return nil, ErrUnproven
	}
	return idx, nil
}

// readRootTree reads the root of the cached tree extension: "" NUL,
// entry count SP subtree count LF, then the tree id when the count is not
// negative (the tree is valid).
func (idx *indexFile) readRootTree(ext []byte) error {
	nul := bytes.IndexByte(ext, 0)
	if nul != 0 {
		return ErrUnproven // the first entry is the root, whose path is empty
	}
	rest := ext[1:]
	lf := bytes.IndexByte(rest, '\n')
	if lf < 0 {
		return ErrUnproven
	}
	counts := strings.Fields(string(rest[:lf]))
	if len(counts) != 2 {
		return ErrUnproven
	}
	count, err := strconv.Atoi(counts[0])
	if err != nil {
		return ErrUnproven
	}
	if count < 0 {
		return nil // invalidated by a change since the last write of the tree
	}
	rest = rest[lf+1:]
	if len(rest) < 20 {
		return ErrUnproven
	}
	idx.rootValid, idx.rootCount = true, count
	copy(idx.rootTree[:], rest[:20])
	return nil
}

// indexVarint decodes the offset varint of index version 4 (git's
// decode_varint); k is 0 when it is malformed.
func indexVarint(b []byte) (v uint64, k int) {
	for k < len(b) && k < 9 {
		c := b[k]
		k++
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, k
		}
		v++
	}
	return 0, 0
}

// fileStat is what git's index records of a file (statFile).
type fileStat struct {
	mode                uint32 // git's: 0o100644, 0o100755, 0o120000; 0 for others
	size, ino, uid, gid uint32
	mtime, ctime        [2]int64 // seconds, nanoseconds
}

// matchesFile checks the worktree file of e against the stat data the
// index recorded, as git does before it would read the file again.
func (e *indexEntry) matchesFile(workTree string, indexTime [2]int64) error {
	st, err := statFile(filepath.Join(workTree, filepath.FromSlash(e.name)), true)
	if err != nil {
		return err // deleted
	}
	// a directory (a submodule, or in the way of a file) has no mode of a
	// file and never matches
	if st.mode != e.mode || st.size != e.size || st.ino != e.ino || st.uid != e.uid || st.gid != e.gid ||
		uint32(st.mtime[0]) != e.mtimeS || uint32(st.mtime[1]) != e.mtimeNs ||
		uint32(st.ctime[0]) != e.ctimeS || uint32(st.ctime[1]) != e.ctimeNs {
		return ErrUnproven
	}
	// racily clean: written in the same instant as the index, or after it,
	// the file may have changed since without its stat data showing it
	if m := st.mtime; m[0] > indexTime[0] || m[0] == indexTime[0] && m[1] >= indexTime[1] {
		return ErrUnproven
	}
	return nil
}

// untrackedWalk looks for an untracked file git status would list.
type untrackedWalk struct {
	ctx     context.Context
	root    string
	tracked map[string]bool
	ig      *gitignore.Rules
	visits  int
}

// dir walks the worktree directory rel ("" for the top), not ignored.
func (w *untrackedWalk) dir(rel string) error {
	if w.ctx.Err() != nil {
		return ErrUnproven
	}
	if err := w.ig.Enter(rel); err != nil {
		return err
	}
	ents, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err != nil {
		return ErrUnproven
	}
	w.visits += len(ents)
	if w.visits > maxVisits {
		return ErrUnproven
	}
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			if rel == "" {
				continue
			}
			return ErrUnproven // a repository inside the worktree
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		if w.tracked[p] {
			continue // checked against the index
		}
		isDir := de.IsDir()
		if w.ig.Ignored(p, isDir) {
			continue // and, for a directory, all it holds
		}
		if !isDir {
			return ErrUnproven // an untracked file git status lists
		}
		// a directory with no file git status would list (empty, or only
		// ignored files) is not listed either
		if err := w.dir(p); err != nil {
			return err
		}
	}
	return nil
}
