package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// PurgeReport says what a purge rewrote and what it proved.
type PurgeReport struct {
	id string
	// Refs are the memory refs whose history was rewritten.
	Refs []string
	// Commits counts the commits rewritten; Dropped those removed because they
	// only touched the purged memory.
	Commits, Dropped int
	// Texts are the texts the memory ever had (what was purged).
	Texts []string
	// Resumed is set by FinishPurge: an earlier purge rewrote history and
	// was stopped before it finished; this one only finishes it, and knows
	// no texts.
	Resumed bool
}

// Purge rewrites the history of every memory ref of the repository that ever
// held the memory with the full id, as if it had never been written: its
// document is removed from every tree, commits that only touched it are
// dropped, and commit subjects that quoted it are redacted. Authors, times and
// the other memories are kept.
//
// A tombstone (purged/<id>, the id only) is then committed on
// refs/memory/main, so that pulls and teammates' clones drop the memory too
// (see honourTombstones).
func (r *Repo) Purge(ctx context.Context, id string) (*PurgeReport, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w: purge needs a full memory id", memerr.ErrInvalid)
	}
	texts := map[string]bool{}
	rep, err := r.purgeRefs(ctx, id, texts)
	if err != nil {
		return nil, err
	}
	if err := r.recordTombstone(ctx, id); err != nil {
		return nil, err
	}
	for t := range texts {
		rep.Texts = append(rep.Texts, t)
	}
	sort.Strings(rep.Texts)
	return rep, nil
}

// purgeRefs rewrites every memory ref's history without the memory id,
// collecting its texts; memerr.ErrNotFound when no ref ever held it.
func (r *Repo) purgeRefs(ctx context.Context, id string, texts map[string]bool) (*PurgeReport, error) {
	refs, err := r.refs.list("refs/memory/")
	if err != nil {
		return nil, err
	}
	rep := &PurgeReport{id: id}
	for _, name := range sortedKeys(refs) {
		for attempt := 0; ; attempt++ {
			tip, err := r.refs.read(name)
			if err != nil {
				return nil, err
			}
			pr := newPurger(r, []string{id}, texts)
			newTip, err := pr.rewrite(ctx, tip)
			if err != nil {
				return nil, err
			}
			if !pr.touched {
				break
			}
			err = r.refs.update(name, newTip, tip)
			if errors.Is(err, errRefMoved) && attempt < 10 {
				continue
			}
			if err != nil {
				return nil, err
			}
			rep.Refs = append(rep.Refs, name)
			rep.Commits += pr.commits
			rep.Dropped += pr.dropped
			break
		}
	}
	if len(rep.Refs) == 0 {
		return nil, fmt.Errorf("%w: no memory %s in any memory ref", memerr.ErrNotFound, id)
	}
	return rep, nil
}

// MarkPurge writes the marker of a purge of id (PurgeMarker) before the
// purge starts, and says whether one was already there: a purge of id
// that was stopped before it finished (FinishPurge finishes it).
func (r *Repo) MarkPurge(id string) (pending bool, err error) {
	marker := r.Mem().PurgeMarker(id)
	if marker == "" || !ValidID(id) {
		return false, nil
	}
	if _, err := os.Stat(marker); err == nil {
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return false, err
	}
	return false, lockfile.WriteAtomic(marker, []byte(id+"\n"), 0o644)
}

// FinishPurge finishes a purge of id that was stopped after it rewrote
// history (Purge then finds the memory nowhere): it records the tombstone,
// if the stopped purge did not, and reports Resumed.
func (r *Repo) FinishPurge(ctx context.Context, id string) (*PurgeReport, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w: purge needs a full memory id", memerr.ErrInvalid)
	}
	if err := r.recordTombstone(ctx, id); err != nil {
		return nil, err
	}
	return &PurgeReport{id: id, Resumed: true}, nil
}

// PurgeFinished removes the marker of a purge of id (PurgeMarker) once its
// caches are scrubbed: a run of it again is then an ordinary one.
func (r *Repo) PurgeFinished(id string) error {
	marker := r.Mem().PurgeMarker(id)
	if marker == "" || !ValidID(id) {
		return nil
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// PendingPurges lists the ids of the purges that were started and not
// finished (their PurgeMarker is still there): a purge stopped by a kill
// or a crash.
func (r *Repo) PendingPurges() ([]string, error) {
	dir := filepath.Dir(r.Mem().PurgeMarker(strings.Repeat("0", IDHexLen)))
	if dir == "." || dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if ValidID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

func sortedKeys(m map[string]Hash) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// purger rewrites histories without the memories of ids (one purge, or the
// tombstones a merge honours).
type purger struct {
	repo    *Repo
	ids     map[string]bool
	mapped  map[Hash]Hash
	texts   map[string]bool
	touched bool
	commits int
	dropped int
}

// rewrite returns the rewritten commit for h, rewriting its ancestors first
// (iteratively: memory histories can be far deeper than the goroutine stack likes).
func newPurger(r *Repo, ids []string, texts map[string]bool) *purger {
	p := &purger{repo: r, ids: map[string]bool{}, mapped: map[Hash]Hash{}, texts: texts}
	for _, id := range ids {
		p.ids[id] = true
	}
	return p
}

func (p *purger) rewrite(ctx context.Context, tip Hash) (Hash, error) {
	if tip.IsZero() {
		return tip, nil
	}
	stack := []Hash{tip}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return zeroHash, err
		}
		h := stack[len(stack)-1]
		if _, done := p.mapped[h]; done {
			stack = stack[:len(stack)-1]
			continue
		}
		c, err := p.repo.readCommit(h)
		if err != nil {
			return zeroHash, err
		}
		pending := false
		for _, ph := range c.ParentHashes {
			if _, done := p.mapped[Hash(ph)]; !done {
				stack = append(stack, Hash(ph))
				pending = true
			}
		}
		if pending {
			continue
		}
		stack = stack[:len(stack)-1]
		if p.mapped[h], err = p.rewriteOne(c); err != nil {
			return zeroHash, err
		}
	}
	return p.mapped[tip], nil
}

func (p *purger) rewriteOne(c *gitCommit) (Hash, error) {
	snap, err := p.repo.snapshotAt(Hash(c.Hash))
	if err != nil {
		return zeroHash, err
	}
	tree := Hash(c.TreeHash)
	removed := map[string][]byte{}
	for id := range p.ids {
		bh, err := snap.blobHash(id)
		if err != nil {
			return zeroHash, err
		}
		if bh.IsZero() {
			continue
		}
		removed[id] = nil
		if p.texts == nil {
			continue
		}
		if m, err := p.repo.readMemory(bh, id); err == nil {
			p.texts[m.Text] = true
		} else if t := p.repo.looseText(bh); t != "" {
			p.texts[t] = true // an invalid document: its text, if it has one
		}
	}
	if len(removed) > 0 {
		p.touched = true
		if tree, err = snap.buildTree(removed); err != nil {
			return zeroHash, err
		}
	}
	var parents []Hash
	for _, ph := range c.ParentHashes {
		if np := p.mapped[Hash(ph)]; !np.IsZero() && !containsHash(parents, np) {
			parents = append(parents, np)
		}
	}
	ids := trailers(c.Message)[trailerID]
	aboutIt := false
	for _, id := range ids {
		aboutIt = aboutIt || p.ids[id]
	}
	if aboutIt {
		p.touched = true
	}
	// A commit whose change was only to the purged memory now changes nothing: drop it.
	if len(parents) <= 1 && (aboutIt || len(removed) > 0) {
		parentTree := zeroHash
		if len(parents) == 1 {
			pc, err := p.repo.readCommit(parents[0])
			if err != nil {
				return zeroHash, err
			}
			parentTree = Hash(pc.TreeHash)
		}
		if tree == parentTree || (len(parents) == 0 && p.emptyTree(tree)) {
			p.dropped++
			if len(parents) == 1 {
				return parents[0], nil
			}
			return zeroHash, nil
		}
	}
	msg := c.Message
	if len(ids) > 0 && p.ids[ids[0]] {
		_, rest, _ := strings.Cut(msg, "\n")
		op := first(trailers(msg)[trailerOp])
		msg = "mem: " + op + " " + Clip(ids[0], MinShownPrefix) + " [purged]\n" + rest
	}
	if tree == Hash(c.TreeHash) && msg == c.Message && slices.Equal(parents, c.ParentHashes) {
		return Hash(c.Hash), nil
	}
	nc := &gitCommit{Author: c.Author, Committer: c.Committer, Message: msg, TreeHash: tree, ParentHashes: parents}
	o, err := p.repo.encodedObject(gitobj.CommitObject, nc.Encode())
	if err != nil {
		return zeroHash, err
	}
	p.commits++
	return p.repo.writeObject(o)
}

func (p *purger) emptyTree(h Hash) bool {
	t, err := p.repo.readTree(h)
	return err == nil && len(t.Entries) == 0
}

func containsHash(hs []Hash, h Hash) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// ReachableLeaks asks git which objects reachable from any ref still contain
// one of texts (as written, or as escaped in a JSON document). It returns their
// ids; none means the purge is proven. It needs the git command.
func (r *Repo) ReachableLeaks(ctx context.Context, texts []string) ([]string, error) {
	if r.GitDir == "" {
		return nil, errors.New("an in-memory repository cannot be checked with git")
	}
	var needles [][]byte
	for _, t := range texts {
		needles = append(needles, []byte(t))
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(t)
		needles = append(needles, bytes.Trim(bytes.TrimSpace(b.Bytes()), `"`))
	}
	list := exec.CommandContext(ctx, "git", "--git-dir", r.GitDir, "rev-list", "--objects", "--all")
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("git rev-list --objects --all: %w", err)
	}
	var ids bytes.Buffer
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			ids.WriteString(f[0] + "\n")
		}
	}
	cat := exec.CommandContext(ctx, "git", "--git-dir", r.GitDir, "cat-file", "--batch")
	cat.Stdin = &ids
	stdout, err := cat.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cat.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	var leaks []string
	br := bufio.NewReader(stdout)
	for {
		header, err := br.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad header %q", header)
		}
		body := make([]byte, size+1)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, err
		}
		for _, n := range needles {
			if len(n) > 0 && bytes.Contains(body, n) {
				leaks = append(leaks, f[0])
				break
			}
		}
	}
	if err := cat.Wait(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	return leaks, nil
}

// looseText is the text field of a document that is not a valid memory, when
// it has one within the size limits: what a purge must prove gone.
func (r *Repo) looseText(h Hash) string {
	o, err := r.object(gitobj.BlobObject, h)
	if err != nil || o.Size() > maxDocumentBytes {
		return ""
	}
	data, err := r.readBlob(h)
	if err != nil {
		return ""
	}
	var doc struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	return doc.Text
}
