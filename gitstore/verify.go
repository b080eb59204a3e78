package gitstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/memerr"
)

// A server that takes pushes to refs/memory/* holds whatever its clients
// send: a client that skipped git-mem's checks (an old version, a hand-made
// commit, --allow-secret) can push a document a write would have refused.
// Verify is the same rules, run on what a push brings: every new commit's
// tree must be a memory store's layout, each document it adds or changes
// must pass validateDocument (its size included) and the secret rules
// (checkDocumentSecrets), and a ref may lose history only as a purge loses
// it.

// memoryRefsPrefix holds every ref Verify checks; others pass untouched.
const memoryRefsPrefix = "refs/memory/"

// proposalsPrefix holds the proposals made to a store (linkstore's,
// refs/memory/proposals/<author>/<id>): a push there is checked like the
// rest, but deleting one is how a review closes it.
const proposalsPrefix = "refs/memory/proposals/"

// RefUpdate is one ref a push moves, as git's pre-receive hook reads it
// (ParseRefUpdates), or as a CI job finds it after the push (UpdateSince).
type RefUpdate struct {
	ref string
	// old is zero when the ref is created, new when it is deleted.
	old, new Hash
	// pending: the update is a push not yet applied (a pre-receive hook),
	// and every commit a ref of the repository reaches was accepted
	// before. Otherwise (a CI job, after the push) a commit is new unless
	// old reaches it.
	pending bool
}

// ParseRefUpdates reads git's pre-receive input, one "<old> <new> <ref>"
// line per ref, and returns the updates of memory refs (refs/memory/*);
// the other lines are passed over by their ref name alone. Object names of
// 64 hex digits (a SHA-256 repository's) are a memerr.ErrUnsupportedFormat.
func ParseRefUpdates(r io.Reader) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: line %d of the ref updates is not \"<old> <new> <ref>\"", memerr.ErrInvalid, n)
		}
		if !strings.HasPrefix(f[2], memoryRefsPrefix) {
			continue
		}
		u := RefUpdate{ref: f[2], pending: true}
		for i, dst := range []*Hash{&u.old, &u.new} {
			h, ok := parseHash(f[i])
			if !ok {
				if len(f[i]) == 64 && isHex(f[i]) {
					return nil, fmt.Errorf("%w: %s is updated with SHA-256 object names, and git-mem reads SHA-1 repositories only", memerr.ErrUnsupportedFormat, f[2])
				}
				return nil, fmt.Errorf("%w: line %d of the ref updates: %s is not an object name", memerr.ErrInvalid, n, quoteShort(f[i]))
			}
			*dst = h
		}
		out = append(out, u)
	}
	return out, sc.Err()
}

// UpdateSince is the update that moved ref from since (zero: the ref was
// created, or its whole history is to be checked) to where it points now:
// what a CI job checks after a push. memerr.ErrNotFound when there is no such ref.
func (r *Repo) UpdateSince(ref string, since Hash) (RefUpdate, error) {
	tip, err := r.refs.read(ref)
	if err != nil {
		return RefUpdate{}, err
	}
	if tip.IsZero() {
		return RefUpdate{}, fmt.Errorf("%w: there is no ref %s in this repository", memerr.ErrNotFound, ref)
	}
	return RefUpdate{ref: ref, old: since, new: tip}, nil
}

// RejectKind is why Verify refuses part of a push.
type RejectKind string

const (
	// rejectInvalid: a memory document validateDocument refuses (an
	// oversized one included), or one that cannot be read.
	rejectInvalid RejectKind = "invalid"
	// RejectSecret: a credential in a document or a commit message.
	RejectSecret RejectKind = "secret"
	// RejectLayout: a tree, tree entry or ref target that is not a memory
	// store's (memories/<2 hex>/<id>.json, purged/<id>, commits).
	RejectLayout RejectKind = "layout"
	// RejectRewrite: the update is not a fast-forward, and no purge
	// tombstone explains the history it drops.
	RejectRewrite RejectKind = "rewrite"
	// RejectDeletion: a memory ref is deleted, and no purge explains it.
	RejectDeletion RejectKind = "deletion"
	// rejectPurged: a purged memory is back, or a commit drops a tombstone.
	rejectPurged RejectKind = "purged"
)

// Rejection is one reason Verify refuses a push. It carries facts, never
// a secret's value: a finding is named by its kind and byte offset.
type Rejection struct {
	Ref string
	// Commit is the new commit at fault, zero when the update itself is.
	Commit Hash
	// ID is the memory at fault, "" when the fault is no one memory's.
	ID     string
	Kind   RejectKind
	Reason string
}

// verifier is one run of Verify: what it found, and what it has checked
// (commits, trees and documents shared by several updates are checked once).
type verifier struct {
	repo       *Repo
	out        []Rejection
	commits    map[Hash]bool
	trees      map[Hash]bool
	docs       map[string]bool // id + blob
	mainStones map[string]bool // the tombstones refs/memory/main has after the push
}

// Verify checks the updates of memory refs (others are passed over) and
// returns what must be refused, nothing when all is well. Every new commit
// is checked, not only the tip: its tree must keep the layout of a memory
// store (tree entries it shares with a parent are not read again), and each
// document it adds or changes must be valid and hold no secret; it must keep
// its parents' tombstones and bring no purged memory back. A ref may lose
// commits (a non-fast-forward update, a deletion) only when rewriting the old
// history without the memories purged (the tombstones of the new tip and of
// refs/memory/main) gives a commit the new history holds, as the pull that
// honours a purge rewrites it; a proposal's ref may be deleted. An error is a
// failure to read the repository, not a verdict.
func (r *Repo) Verify(ctx context.Context, updates []RefUpdate) ([]Rejection, error) {
	if r.GitDir == "" {
		return nil, errors.New("an in-memory repository cannot be verified with git")
	}
	v := &verifier{repo: r, commits: map[Hash]bool{}, trees: map[Hash]bool{}, docs: map[string]bool{}}
	main, err := r.refs.read(RefMain)
	if err != nil {
		return nil, err
	}
	for _, u := range updates {
		if u.ref == RefMain {
			main = u.new
		}
	}
	if v.mainStones, err = r.tombstones(main); err != nil {
		v.mainStones = map[string]bool{} // a main that is no commit is refused below
	}
	for _, u := range updates {
		if !strings.HasPrefix(u.ref, memoryRefsPrefix) {
			continue
		}
		if err := v.update(ctx, u); err != nil {
			return nil, fmt.Errorf("%s: %w", u.ref, err)
		}
	}
	return v.out, nil
}

func (v *verifier) reject(ref string, commit Hash, id string, kind RejectKind, format string, args ...any) {
	v.out = append(v.out, Rejection{Ref: ref, Commit: commit, ID: id, Kind: kind, Reason: fmt.Sprintf(format, args...)})
}

func (v *verifier) update(ctx context.Context, u RefUpdate) error {
	r := v.repo
	if u.new.IsZero() {
		if u.old.IsZero() || strings.HasPrefix(u.ref, proposalsPrefix) {
			return nil
		}
		ok, err := v.explained(ctx, u.old, zeroHash, v.mainStones)
		if err != nil {
			return err
		}
		if !ok {
			v.reject(u.ref, zeroHash, "", RejectDeletion, "the ref would be deleted with its history, and no purge tombstone explains it")
		}
		return nil
	}
	if _, err := r.readCommit(u.new); err != nil {
		var missing *memerr.DamagedError
		if errors.As(err, &missing) && missing.Missing {
			return err // not in the repository: nothing to judge it by
		}
		if errors.Is(err, memerr.ErrCorrupt) {
			v.reject(u.ref, u.new, "", RejectLayout, "the ref would point at %s, which is no commit", u.new.Short())
			return nil
		}
		return err
	}
	args := []string{"rev-list", "--reverse", u.new.String()}
	switch {
	case u.pending:
		args = append(args, "--not", "--all")
	case !u.old.IsZero():
		args = append(args, "^"+u.old.String())
	}
	fresh, err := v.revList(ctx, args...)
	if err != nil {
		return err
	}
	for _, h := range fresh {
		if err := v.commit(ctx, u.ref, h); err != nil {
			return err
		}
	}
	if u.old.IsZero() {
		return nil
	}
	lost, err := v.revList(ctx, "rev-list", u.old.String(), "^"+u.new.String())
	if err != nil {
		return err
	}
	if len(lost) == 0 {
		return nil
	}
	stones, err := r.tombstones(u.new)
	if err != nil {
		return err
	}
	for id := range v.mainStones {
		stones[id] = true
	}
	ok, err := v.explained(ctx, u.old, u.new, stones)
	if err != nil {
		return err
	}
	if !ok {
		v.reject(u.ref, u.new, "", RejectRewrite, "not a fast-forward: %s of the old tip %s would be dropped, and no purge tombstone explains it", plural(len(lost), "commit", "commits"), u.old.Short())
	}
	return nil
}

// revList runs git rev-list and returns the commits it names. git reads
// the objects of a push in quarantine from the environment it inherits.
func (v *verifier) revList(ctx context.Context, args ...string) ([]Hash, error) {
	out, err := v.repo.runGit(ctx, TransportOptions{}, nil, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	var hs []Hash
	for _, l := range strings.Fields(string(out)) {
		h, ok := parseHash(l)
		if !ok {
			return nil, fmt.Errorf("git rev-list: unexpected line %s", quoteShort(l))
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// commit checks one new commit: its message, the layout of what it
// changed, the documents it adds or changes, and its tombstones.
func (v *verifier) commit(ctx context.Context, ref string, h Hash) error {
	if v.commits[h] {
		return nil
	}
	v.commits[h] = true
	if err := ctx.Err(); err != nil {
		return err
	}
	r := v.repo
	c, err := r.readCommit(h)
	if err != nil {
		return err
	}
	// a tree named memories that is a file, or an object of the wrong
	// type, is a layout git-mem cannot read
	snap, err := r.snapshotAt(h)
	if errors.Is(err, memerr.ErrCorrupt) {
		v.reject(ref, h, "", RejectLayout, "its tree is not a memory store's: %v", err)
		return nil
	}
	if err != nil {
		return err
	}
	var parents []*snapshot
	for _, p := range c.ParentHashes {
		ps, err := r.snapshotAt(Hash(p))
		if errors.Is(err, memerr.ErrCorrupt) {
			v.reject(ref, h, "", RejectLayout, "its parent %s is not a memory store's commit: %v", Hash(p).Short(), err)
			return nil
		}
		if err != nil {
			return err
		}
		parents = append(parents, ps)
	}
	if !v.layout(ref, h, snap, parents) {
		return nil // its documents cannot be told apart from the rest
	}
	stones, err := r.tombstones(h)
	if err != nil {
		return err
	}
	for _, p := range c.ParentHashes {
		had, err := r.tombstones(Hash(p))
		if err != nil {
			return err
		}
		for _, id := range sortedSet(had) {
			if !stones[id] {
				v.reject(ref, h, id, rejectPurged, "drops the tombstone %s/%s of a purged memory", purgedDir, id)
			}
		}
	}
	changed, err := changedDocuments(snap, parents)
	if err != nil {
		return err
	}
	before := len(v.out)
	for _, id := range sortedKeys(changed) {
		v.document(ref, h, id, changed[id], stones)
	}
	// a subject quotes its memory's text: a secret there is said once,
	// for the document
	for _, rj := range v.out[before:] {
		if rj.Kind == RejectSecret {
			return nil
		}
	}
	if err := CheckSecrets(c.Message); err != nil {
		v.reject(ref, h, first(trailers(c.Message)[trailerID]), RejectSecret, "commit message: %s", secretReason(err))
	}
	return nil
}

// changedDocuments are the documents of snap whose blob is in none of its
// parents at the same id: what the commit itself brings (a merge's side
// that only one parent had was checked with that parent, or accepted
// before).
func changedDocuments(snap *snapshot, parents []*snapshot) (map[string]Hash, error) {
	out := map[string]Hash{}
	if len(parents) == 0 {
		err := snap.entries(func(id string, h Hash) error {
			out[id] = h
			return nil
		})
		return out, err
	}
	err := diffSnapshots(parents[0], snap, func(id string, _, is Hash) error {
		if !is.IsZero() {
			out[id] = is
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parents[1:] {
		for id, h := range out {
			ph, err := p.blobHash(id)
			if err != nil {
				return nil, err
			}
			if ph == h {
				delete(out, id)
			}
		}
	}
	return out, nil
}

// document checks one document a new commit brings.
func (v *verifier) document(ref string, commit Hash, id string, blob Hash, purged map[string]bool) {
	key := id + " " + blob.String()
	if v.docs[key] {
		return
	}
	v.docs[key] = true
	if purged[id] || v.mainStones[id] {
		v.reject(ref, commit, id, rejectPurged, "the memory was purged (%s/%s) and its document is back", purgedDir, id)
		return
	}
	m, err := v.repo.readMemory(blob, id)
	var de *DocumentError
	switch {
	case errors.As(err, &de):
		v.reject(ref, commit, id, rejectInvalid, "invalid document: %s", de.Reason)
		return
	case err != nil:
		v.reject(ref, commit, id, rejectInvalid, "unreadable document: %v", err)
		return
	}
	if err := checkDocumentSecrets(m); err != nil {
		v.reject(ref, commit, id, RejectSecret, "%s", secretReason(err))
	}
}

// secretReason is a secret error without its sentinel's words: the field
// and each finding's kind and offset.
func secretReason(err error) string {
	return strings.Replace(err.Error(), memerr.ErrSecret.Error()+": ", "", 1)
}

// layout checks the trees of snap that none of its parents has at the
// same place; false when its root is no memory tree at all.
func (v *verifier) layout(ref string, commit Hash, snap *snapshot, parents []*snapshot) bool {
	root := snap.root
	if v.trees[Hash(root.Hash)] || sameTree(root, parents, func(p *snapshot) *gitTree { return p.root }) {
		return true
	}
	ok := true
	for _, e := range root.Entries {
		switch {
		case e.Name == memoriesDir && e.Mode == gitobj.ModeDir:
			v.memoriesTree(ref, commit, snap, parents)
		case e.Name == purgedDir && e.Mode == gitobj.ModeDir:
			v.purgedTree(ref, commit, Hash(e.Hash))
		case e.Name == memoriesDir || e.Name == purgedDir:
			v.reject(ref, commit, "", RejectLayout, "%s is not a directory", e.Name)
			ok = false
		default:
			v.reject(ref, commit, "", RejectLayout, "the root holds %s, and a memory store holds only %s/ and %s/", quoteShort(e.Name), memoriesDir, purgedDir)
			ok = false
		}
	}
	if ok {
		v.trees[Hash(root.Hash)] = true
	}
	return ok
}

// sameTree reports whether a parent has tree t at the place at gives.
func sameTree(t *gitTree, parents []*snapshot, at func(*snapshot) *gitTree) bool {
	for _, p := range parents {
		if pt := at(p); pt != nil && pt.Hash == t.Hash {
			return true
		}
	}
	return false
}

// memoriesTree checks memories/: fan-out directories of two hex digits,
// each holding only <id>.json files of ids that start with them.
func (v *verifier) memoriesTree(ref string, commit Hash, snap *snapshot, parents []*snapshot) {
	if v.trees[Hash(snap.mems.Hash)] || sameTree(snap.mems, parents, func(p *snapshot) *gitTree { return p.mems }) {
		return
	}
	for _, fe := range snap.mems.Entries {
		if fe.Mode != gitobj.ModeDir || len(fe.Name) != 2 || !isHex(fe.Name) {
			v.reject(ref, commit, "", RejectLayout, "%s/%s is not a fan-out directory (two lower-case hex digits)", memoriesDir, quoteShort(fe.Name))
			continue
		}
		if v.trees[Hash(fe.Hash)] || inParents(parents, func(p *snapshot) bool {
			pe := findEntry(p.mems, fe.Name)
			return pe != nil && pe.Hash == fe.Hash
		}) {
			continue
		}
		fan, err := snap.fan(fe.Name)
		if err != nil || fan == nil {
			v.reject(ref, commit, "", RejectLayout, "%s/%s cannot be read: %v", memoriesDir, fe.Name, err)
			continue
		}
		good := true
		for _, e := range fan.Entries {
			id, ok := docID(fe.Name, e.Name)
			switch {
			case !ok:
				v.reject(ref, commit, "", RejectLayout, "%s/%s/%s is not a memory document's name (<16 hex digits>.json)", memoriesDir, fe.Name, quoteShort(e.Name))
				good = false
			case e.Mode != gitobj.ModeRegular:
				v.reject(ref, commit, id, RejectLayout, "%s has mode %o, not a regular file's", memoryPath(id), uint32(e.Mode))
				good = false
			}
		}
		if good {
			v.trees[Hash(fe.Hash)] = true
		}
	}
	v.trees[Hash(snap.mems.Hash)] = true
}

func inParents(parents []*snapshot, has func(*snapshot) bool) bool {
	for _, p := range parents {
		if has(p) {
			return true
		}
	}
	return false
}

// purgedTree checks purged/: one regular file per purged id, holding that
// id as a tombstone does and nothing else.
func (v *verifier) purgedTree(ref string, commit Hash, h Hash) {
	if v.trees[h] {
		return
	}
	t, err := v.repo.readTree(h)
	if err != nil {
		v.reject(ref, commit, "", RejectLayout, "%s/ cannot be read: %v", purgedDir, err)
		return
	}
	good := true
	for _, e := range t.Entries {
		if !ValidID(e.Name) || e.Mode != gitobj.ModeRegular {
			v.reject(ref, commit, "", RejectLayout, "%s/%s is not a tombstone (a file named by a memory id)", purgedDir, quoteShort(e.Name))
			good = false
			continue
		}
		if v.trees[Hash(e.Hash)] {
			continue
		}
		if o, err := v.repo.object(gitobj.BlobObject, Hash(e.Hash)); err == nil && string(o.Data) == string(tombstoneDoc(e.Name)) {
			continue
		}
		v.reject(ref, commit, e.Name, RejectLayout, "%s/%s holds more than the purged memory's id", purgedDir, e.Name)
		good = false
	}
	if good {
		v.trees[h] = true
	}
}

// explained reports whether the history of old, rewritten without the
// memories purged (ids), is part of the history of tip (or gone entirely
// for a zero tip): the only history a purge drops. The rewrite is the one
// a purge and the pull that honours it make (authors, times and messages
// kept), so a legitimate purge's push holds its result; it is made in
// memory, and nothing is written to the repository checked.
func (v *verifier) explained(ctx context.Context, old, tip Hash, ids map[string]bool) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	s := v.repo.scratch()
	p := newPurger(s, sortedSet(ids), nil)
	if !tip.IsZero() {
		if err := s.seedKnown(ctx, p, old, tip); err != nil {
			return false, err
		}
	}
	rewritten, err := p.rewrite(ctx, old)
	if err != nil {
		return false, err
	}
	if tip.IsZero() {
		return rewritten.IsZero(), nil
	}
	return NewStore(s, "", ScopeProject).IsAncestor(ctx, rewritten, tip)
}

// scratch is a view of r whose writes stay in memory: a check may build
// objects to compare them, never adding to the repository it judges.
func (r *Repo) scratch() *Repo {
	return &Repo{
		objects: &overlayObjects{mem: gitobj.NewMemDB(), base: r.objects},
		refs:    r.refs,
		GitDir:  r.GitDir,
		config:  r.config,
		Now:     r.Now,
		trees:   &treeCache{},
	}
}

// overlayObjects reads its own objects, then base's; it writes its own.
type overlayObjects struct {
	mem  *gitobj.MemDB
	base gitobj.DB
}

// Read implements gitobj.DB.
func (o *overlayObjects) Read(h Hash) (*gitobj.Object, error) {
	if obj, err := o.mem.Read(h); err == nil {
		return obj, nil
	}
	return o.base.Read(h)
}

// Write implements gitobj.DB.
func (o *overlayObjects) Write(obj *gitobj.Object) (Hash, error) { return o.mem.Write(obj) }
