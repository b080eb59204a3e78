package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// A write does not rewrite the snapshot: it appends one segment to a delta
// file beside it (recall.snapshot.delta) with the documents it removed and
// the ones it added, already analyzed. A reader opens the snapshot (the
// base), reads the delta, and answers from both (snapView). When a write
// would take the delta past foldAt bytes, or a change cannot be expressed
// as one (a store read in full, a damaged delta), the write folds base and
// delta into a new base and removes the delta. So a write costs the same
// at 1,000 memories and at 100,000, and the rewrite of the whole file is
// paid once per foldAt bytes of changes. Hooks leave the fold to a warm-up
// in the background (Access.DeferFolds).
//
// A segment (integers little-endian):
//
//	"GMSD", u32 body length, u32 CRC-32 of the body, body:
//	u32 checksum and u64 length of the base it extends (a delta left
//	beside another base is ignored); the tips it starts from and the tips
//	it brings the snapshot to (uvarint-counted store key, commit); removed
//	documents (uvarint-counted: key, uvarint base document number + 1 (0:
//	not in the base), and for a base document its term count and terms);
//	added documents (uvarint-counted: key, JSON, term count, terms), terms
//	as uvarint-counted (term, frequency).
//
// Segments apply in order, each only to the state it starts from: one
// written from an older state by a concurrent writer is skipped (the reader
// brings what it missed forward by tree diffs, as for a stale base). A
// damaged segment ends the delta, and the next write folds.
const deltaMagic = "GMSD"

// Bounds of foldAt, and the size to which a delta grows while folds are
// deferred before a write folds it anyway.
var (
	minFoldAt      int64 = 16 << 10
	maxFoldAt      int64 = 1 << 20
	deferredFoldAt int64 = 4 << 20
)

// foldAt is the size past which a write folds the delta of a base of
// baseSize bytes. Every reader parses the whole delta, and a fold rewrites
// the whole base once per foldAt bytes written, so the two costs balance
// near the square root of the base's size: about 70 KB at 10,000 memories
// and 250 KB at 100,000 (docs/architecture.md, "Caches").
func foldAt(baseSize int64) int64 {
	return min(max(int64(32*math.Sqrt(float64(baseSize))), minFoldAt), maxFoldAt)
}

// FoldDue reports whether the set's snapshot delta is past its fold size,
// so that the next Refresh without Access.DeferFolds folds it.
func FoldDue(set *gitstore.Set) bool {
	path := SnapshotPath(set)
	if path == "" {
		return false
	}
	d, err := os.Stat(deltaPath(path))
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && d.Size() > foldAt(b.Size())
}

// deltaPath is the delta of the snapshot at path (memdir.Dir.SnapshotDelta).
func deltaPath(path string) string { return path + ".delta" }

// removeSnapshot deletes the snapshot at path and its delta.
func removeSnapshot(path string) error {
	dropKeptView(path)
	err := os.Remove(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Remove(deltaPath(path)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// snapView is a snapshot with its delta applied: the corpus recall ranks
// from. Base documents keep their numbers; added documents follow them.
type snapView struct {
	base   *snapshot.File
	tips   map[string]string
	ndocs  int
	tokens int
	// documents of the base the delta removed, with their terms
	dropped     map[uint64]bool
	droppedKeys map[string]bool
	droppedDocs []*deltaDoc
	// documents the delta added (dead: removed again)
	added    []*deltaDoc
	addedKey map[string]int
	// terms holds, for each term asked about since the view last changed,
	// what the delta changes of its postings; nil: none asked about yet
	terms map[string]*deltaTerm
	// deltaSize is the delta file's length; damaged that a segment could not be read
	deltaSize int64
	damaged   bool
}

// deltaTerm is what the delta changes of one term's postings: the removed
// base documents holding it, and the live added documents holding it with
// its frequency in each.
type deltaTerm struct {
	dropped int
	added   []deltaPost
}

type deltaPost struct {
	doc int32 // index in snapView.added
	tf  int32
}

// deltaDoc is a document as a segment holds it.
type deltaDoc struct {
	key     string
	baseDoc int // the base document a removal removes; -1: none
	raw     []byte
	n       int
	// tf are the document's terms; a document read from a segment keeps
	// them encoded (enc) until they are needed, as a reader asks about a
	// handful of terms and the delta holds thousands
	tf   termFreqs
	enc  []byte
	sum  *snapshot.Summary // nil: read from raw when needed
	dead bool
}

// freqs are the document's terms, decoded the first time.
func (d *deltaDoc) freqs() termFreqs {
	if d.enc != nil {
		r := snapshot.NewDecoder(d.enc, 0)
		k := r.Uvarint()
		d.tf = make(termFreqs, 0, min(k, uint64(len(d.enc))))
		for ; k > 0 && r.Err() == nil; k-- {
			t := r.Bytes(int(r.Uvarint()))
			if n := r.Uvarint(); r.Err() == nil {
				d.tf = append(d.tf, termFreq{string(t), int32(n)})
			}
		}
		// written in ascending order; a segment that is not stays readable
		if !slices.IsSortedFunc(d.tf, compareTermFreq) {
			slices.SortFunc(d.tf, compareTermFreq)
		}
		d.enc = nil
	}
	return d.tf
}

// matching calls fn for each of the document's terms that want holds, with
// its frequency; encoded terms are looked up as they are, not decoded.
func (d *deltaDoc) matching(want map[string]*deltaTerm, fn func(dt *deltaTerm, n int)) {
	if d.enc == nil {
		for _, e := range d.tf {
			if dt := want[e.term]; dt != nil {
				fn(dt, int(e.n))
			}
		}
		return
	}
	r := snapshot.NewDecoder(d.enc, 0)
	for k := r.Uvarint(); k > 0 && r.Err() == nil; k-- {
		t := r.Bytes(int(r.Uvarint()))
		n := r.Uvarint()
		if dt := want[string(t)]; dt != nil && r.Err() == nil {
			fn(dt, int(n))
		}
	}
}

// summary is the document's summary, decoded from its JSON the first time.
func (d *deltaDoc) summary() (snapshot.Summary, error) {
	if d.sum == nil {
		m, err := gitstore.DecodeMemory(d.raw)
		if err != nil {
			return snapshot.Summary{}, fmt.Errorf("%w: document %s: %v", ErrSnapshot, d.key, err)
		}
		sm := snapshot.SummaryOf(d.key, m)
		d.sum = &sm
	}
	return *d.sum, nil
}

func newView(base *snapshot.File) *snapView {
	return &snapView{base: base, tips: base.Tips(), ndocs: base.Docs(), tokens: base.Tokens(),
		dropped: map[uint64]bool{}, droppedKeys: map[string]bool{}, addedKey: map[string]int{}}
}

// openView opens the base at path and applies its delta.
func openView(path string, mapped bool) (*snapView, error) {
	base, err := openSnapshot(path, mapped)
	if err != nil {
		return nil, err
	}
	v := newView(base)
	data, err := os.ReadFile(deltaPath(path))
	if err == nil {
		v.readDelta(data)
	}
	return v, nil
}

func (v *snapView) close() { v.base.Close() }

// unchanged reports whether the files at path are still the base and the
// delta this view read: no other process wrote a segment or a new base
// since, so bringing the view forward continues from what is on disk.
func (v *snapView) unchanged(path string) bool {
	if v.base.Info() == nil || v.damaged {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || !os.SameFile(st, v.base.Info()) || st.Size() != v.base.Size() {
		return false
	}
	dst, err := os.Stat(deltaPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return v.deltaSize == 0
	}
	return err == nil && dst.Size() == v.deltaSize
}

// segment is one write's change.
type segment struct {
	from, to map[string]string
	drops    []*deltaDoc
	puts     []*deltaDoc
}

// readDelta applies the segments of data (which the view keeps: the
// documents' JSON and terms are not copied). Every hook reads the whole
// delta, up to its fold size, so it allocates little: the tips a segment starts
// from are compared as written with those the previous one ended at
// (written in key order), and the documents' terms are only walked past
// here, to be read for the terms a query asks about (prepare).
func (v *snapView) readDelta(data []byte) {
	v.deltaSize = int64(len(data))
	le := binary.LittleEndian
	var at []byte // the tips the last applied segment ended at, as written
	current := func() map[string]string {
		if at != nil {
			v.tips, at = decodeTips(at), nil
		}
		return v.tips
	}
	defer current()
	for off := 0; off < len(data); {
		if len(data)-off < 12 || string(data[off:off+4]) != deltaMagic {
			v.damaged = true
			return
		}
		n := int(le.Uint32(data[off+4:]))
		if n > len(data)-off-12 || snapshot.Checksum(data[off+12:off+12+n]) != le.Uint32(data[off+8:]) {
			v.damaged = true
			return
		}
		body := data[off+12 : off+12+n]
		off += 12 + n
		if len(body) < 12 || le.Uint32(body) != v.base.CRC() || int64(le.Uint64(body[4:])) != v.base.Size() {
			continue // beside another base
		}
		dec := snapshot.NewDecoder(body, 12)
		r := &dec
		from := skipTips(r)
		to := skipTips(r)
		if r.Err() != nil {
			v.damaged = true
			return
		}
		if !(at != nil && bytes.Equal(from, at)) && !SameTips(decodeTips(from), current()) {
			continue
		}
		sg := &segment{}
		for i, k := 0, r.Uvarint(); uint64(i) < k && r.Err() == nil; i++ {
			d := &deltaDoc{key: r.Str(), baseDoc: int(r.Uvarint()) - 1}
			if d.baseDoc >= 0 {
				d.n, d.enc = skipTerms(r)
			}
			sg.drops = append(sg.drops, d)
		}
		for i, k := 0, r.Uvarint(); uint64(i) < k && r.Err() == nil; i++ {
			d := &deltaDoc{key: r.Str(), baseDoc: -1}
			d.raw = r.Bytes(int(r.Uvarint()))
			d.n, d.enc = skipTerms(r)
			sg.puts = append(sg.puts, d)
		}
		if r.Err() != nil || (sg.drops == nil && sg.puts == nil && bytes.Equal(from, to)) {
			v.damaged = true
			return
		}
		v.apply(sg)
		at = to
	}
}

// skipTips reads past a segment's tips and returns them as written.
func skipTips(r *snapshot.Decoder) []byte {
	start := r.Off()
	for i, n := 0, r.Uvarint(); uint64(i) < n && r.Err() == nil; i++ {
		r.Bytes(int(r.Uvarint()))
		r.Bytes(int(r.Uvarint()))
	}
	if r.Err() != nil {
		return nil
	}
	return r.Data()[start:r.Off()]
}

// decodeTips reads tips as a segment holds them.
func decodeTips(b []byte) map[string]string {
	r := snapshot.NewDecoder(b, 0)
	return r.Tips()
}

// skipTerms reads a document's length and walks past its terms, returning
// them as written (their count, then each term and its frequency).
func skipTerms(r *snapshot.Decoder) (int, []byte) {
	n := int(r.Uvarint())
	start := r.Off()
	k := r.Uvarint()
	if r.Err() != nil || k > uint64(len(r.Data())) {
		r.Fail()
		return 0, nil
	}
	for i := uint64(0); i < k && r.Err() == nil; i++ {
		r.Bytes(int(r.Uvarint()))
		r.Uvarint()
	}
	if r.Err() != nil {
		return 0, nil
	}
	return n, r.Data()[start:r.Off()]
}

// apply applies a segment that starts from the view's state.
func (v *snapView) apply(sg *segment) {
	for _, d := range sg.drops {
		v.remove(d)
	}
	for _, d := range sg.puts {
		if i, ok := v.addedKey[d.key]; ok {
			v.kill(i)
		}
		v.addedKey[d.key] = len(v.added)
		v.added = append(v.added, d)
		v.ndocs++
		v.tokens += d.n
	}
	if sg.to != nil {
		v.tips = sg.to
	}
	v.terms = nil
}

func (v *snapView) remove(d *deltaDoc) {
	if i, ok := v.addedKey[d.key]; ok {
		v.kill(i)
		return
	}
	if d.baseDoc < 0 || d.baseDoc >= v.base.Docs() || v.dropped[uint64(d.baseDoc)] {
		return
	}
	v.dropped[uint64(d.baseDoc)] = true
	v.droppedKeys[d.key] = true
	v.droppedDocs = append(v.droppedDocs, d)
	v.ndocs--
	v.tokens -= d.n
}

func (v *snapView) kill(i int) {
	d := v.added[i]
	d.dead = true
	delete(v.addedKey, d.key)
	v.ndocs--
	v.tokens -= d.n
}

// segmentFor turns the changes tree diffs found into a segment from the
// view's state to tips, reading the removed base documents' terms.
func (v *snapView) segmentFor(tips map[string]string, ch *snapChanges) (*segment, error) {
	sg := &segment{from: v.tips, to: tips}
	drops := make([]string, 0, len(ch.drop))
	for k := range ch.drop {
		drops = append(drops, k)
	}
	sort.Strings(drops)
	for _, k := range drops {
		d := &deltaDoc{key: k, baseDoc: -1}
		if _, ok := v.addedKey[k]; !ok && !v.droppedKeys[k] {
			doc, raw, err := v.base.Find(k)
			if err != nil {
				return nil, err
			}
			if doc >= 0 {
				m, err := gitstore.DecodeMemory(raw)
				if err != nil {
					return nil, fmt.Errorf("%w: document %s: %v", ErrSnapshot, k, err)
				}
				d.baseDoc = doc
				sd := analyzedDoc(m, raw, nil)
				d.n, d.tf = sd.n, sd.tf
			}
		}
		sg.drops = append(sg.drops, d)
	}
	puts := make([]string, 0, len(ch.put))
	for k := range ch.put {
		puts = append(puts, k)
	}
	sort.Strings(puts)
	for _, k := range puts {
		p := ch.put[k]
		sum := p.sum
		sum.Key = k
		sg.puts = append(sg.puts, &deltaDoc{key: k, baseDoc: -1, raw: p.raw, n: p.n, tf: p.tf, sum: &sum})
	}
	return sg, nil
}

func (sg *segment) encode(base *snapshot.File) []byte {
	le := binary.LittleEndian
	appendStr := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	appendTips := func(b []byte, tips map[string]string) []byte {
		keys := make([]string, 0, len(tips))
		for k := range tips {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = appendStr(appendStr(b, k), tips[k])
		}
		return b
	}
	appendTerms := func(b []byte, n int, tf termFreqs) []byte {
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(n)), uint64(len(tf)))
		for _, e := range tf {
			b = binary.AppendUvarint(appendStr(b, e.term), uint64(e.n))
		}
		return b
	}
	body := le.AppendUint32(nil, base.CRC())
	body = le.AppendUint64(body, uint64(base.Size()))
	body = appendTips(appendTips(body, sg.from), sg.to)
	body = binary.AppendUvarint(body, uint64(len(sg.drops)))
	for _, d := range sg.drops {
		body = binary.AppendUvarint(appendStr(body, d.key), uint64(d.baseDoc+1))
		if d.baseDoc >= 0 {
			body = appendTerms(body, d.n, d.tf)
		}
	}
	body = binary.AppendUvarint(body, uint64(len(sg.puts)))
	for _, d := range sg.puts {
		body = appendTerms(appendStr(appendStr(body, d.key), string(d.raw)), d.n, d.tf)
	}
	out := append([]byte(deltaMagic), make([]byte, 8)...)
	le.PutUint32(out[4:], uint32(len(body)))
	le.PutUint32(out[8:], snapshot.Checksum(body))
	return append(out, body...)
}

// appendSegment appends one encoded segment to the delta at path with a
// single write, so concurrent writers' segments never interleave.
func appendSegment(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// changesFromBase are the view's changes to its base plus ch, as one set of
// changes to the base (what a fold applies).
func (v *snapView) changesFromBase(ch *snapChanges) (*snapChanges, error) {
	out := newSnapChanges()
	for s := range ch.scopes {
		out.scopes[s] = true
	}
	for k := range v.droppedKeys {
		out.drop[k] = true
	}
	for _, d := range v.added {
		if d.dead || ch.scopes[scopeOfKey(d.key)] {
			continue
		}
		out.drop[d.key] = true
		sum, err := d.summary()
		if err != nil {
			return nil, err
		}
		out.put[d.key] = &snapDoc{raw: d.raw, n: d.n, tf: d.freqs(), sum: sum}
	}
	for k := range ch.drop {
		delete(out.put, k)
		out.drop[k] = true
	}
	for k, d := range ch.put {
		out.put[k] = d
	}
	return out, nil
}

// fold is the base rewritten with the view's changes and ch, reflecting tips.
func (v *snapView) fold(tips map[string]string, ch *snapChanges) ([]byte, error) {
	all, err := v.changesFromBase(ch)
	if err != nil {
		return nil, err
	}
	return applyChanges(v.base, tips, all)
}

// the corpus and loader of the view

func (v *snapView) docCount() int { return v.ndocs }

// docNumbers is the size of the view's document numbers: the base's and
// the delta's added documents, dropped ones included.
func (v *snapView) docNumbers() int { return v.base.Docs() + len(v.added) }

func (v *snapView) avgLen() float64 {
	if v.ndocs == 0 {
		return 1
	}
	return float64(v.tokens) / float64(v.ndocs)
}

// prepare reads, in one pass over the delta's documents, what the delta
// changes of the postings of each term of terms not asked about before.
func (v *snapView) prepare(terms []string) {
	if len(v.added) == 0 && len(v.droppedDocs) == 0 {
		return
	}
	var want map[string]*deltaTerm
	for _, t := range terms {
		if _, ok := v.terms[t]; ok {
			continue
		}
		if want == nil {
			want = make(map[string]*deltaTerm, len(terms))
		}
		want[t] = &deltaTerm{}
	}
	if want == nil {
		return
	}
	if v.terms == nil {
		v.terms = make(map[string]*deltaTerm, len(want))
	}
	for t, dt := range want {
		v.terms[t] = dt
	}
	for _, d := range v.droppedDocs {
		d.matching(want, func(dt *deltaTerm, _ int) { dt.dropped++ })
	}
	for i, d := range v.added {
		if !d.dead {
			d.matching(want, func(dt *deltaTerm, n int) { dt.added = append(dt.added, deltaPost{int32(i), int32(n)}) })
		}
	}
}

// term is what the delta changes of term's postings (nil: nothing).
func (v *snapView) term(term string) *deltaTerm {
	if len(v.added) == 0 && len(v.droppedDocs) == 0 {
		return nil
	}
	dt, ok := v.terms[term]
	if !ok {
		v.prepare([]string{term})
		dt = v.terms[term]
	}
	return dt
}

func (v *snapView) df(term string) (int, error) {
	n, err := v.base.DF(term)
	if err != nil {
		return 0, err
	}
	if dt := v.term(term); dt != nil {
		n += len(dt.added) - dt.dropped
	}
	return n, nil
}

func (v *snapView) postings(term string, fn func(doc uint64, tf, dl int)) error {
	if err := v.base.Postings(term, v.undropped(fn)); err != nil {
		return err
	}
	v.addedPostings(term, fn)
	return nil
}

var _ amongReader = (*snapView)(nil)

// postingsAmong calls fn for at least the documents of docs (ascending)
// that contain term: the base's among them, and every document the delta
// added with term (a few).
func (v *snapView) postingsAmong(term string, docs []uint64, fn func(doc uint64, tf, dl int)) error {
	inBase, _ := slices.BinarySearch(docs, uint64(v.base.Docs()))
	if err := v.base.PostingsAmong(term, docs[:inBase], v.undropped(fn)); err != nil {
		return err
	}
	v.addedPostings(term, fn)
	return nil
}

// undropped is fn for the base's documents the delta has not dropped.
func (v *snapView) undropped(fn func(doc uint64, tf, dl int)) func(doc uint64, tf, dl int) {
	if len(v.dropped) == 0 {
		return fn
	}
	return func(doc uint64, tf, dl int) {
		if !v.dropped[doc] {
			fn(doc, tf, dl)
		}
	}
}

// addedPostings calls fn for the documents the delta added with term.
func (v *snapView) addedPostings(term string, fn func(doc uint64, tf, dl int)) {
	if dt := v.term(term); dt != nil {
		for _, p := range dt.added {
			fn(uint64(v.base.Docs()+int(p.doc)), int(p.tf), normLen(lenAsNorm(v.added[p.doc].n)))
		}
	}
}

func (v *snapView) external(doc uint64) (string, error) {
	if doc < uint64(v.base.Docs()) {
		return v.base.External(doc)
	}
	i := int(doc) - v.base.Docs()
	if i >= len(v.added) || v.added[i].dead {
		return "", fmt.Errorf("%w: no document %d", ErrSnapshot, doc)
	}
	return v.added[i].key, nil
}

func (v *snapView) load(key string) (*entry, error) {
	if i, ok := v.addedKey[key]; ok {
		m, err := gitstore.DecodeMemory(v.added[i].raw)
		if err != nil {
			return nil, fmt.Errorf("%w: document %s: %v", ErrSnapshot, key, err)
		}
		return &entry{key: key, scope: scopeOfKey(key), m: m}, nil
	}
	if v.droppedKeys[key] {
		return nil, fmt.Errorf("%w: %w: %s", ErrSnapshot, ErrNoDocument, key)
	}
	return loadSnapshotDoc(v.base, key)
}

var _ loader = (*snapView)(nil)

// viewOf reads an encoded snapshot held in memory, with no delta.
func viewOf(data []byte) (*snapView, error) {
	s, err := readSnapshot(data)
	if err != nil {
		return nil, err
	}
	return newView(s), nil
}
