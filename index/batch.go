package index

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
)

// BatchItem is one memory offered to RememberBatch.
type BatchItem struct {
	// New is the memory to save, as git mem add would.
	New gitstore.NewMemory
	// Restore, when set, is a memory read back from an export, restored
	// under its own id (see gitstore.BatchEntry).
	Restore *gitstore.Memory
	// ID is the id an export gave the item without the whole memory (the
	// Markdown export): when the store holds it, the item is unchanged.
	ID string
}

// BatchOutcome is what RememberBatch did, or would do, with one item.
type BatchOutcome struct {
	// Memory is the memory saved or reinforced (in a dry run: as it would
	// be); nil when the item was refused.
	Memory *gitstore.Memory
	// Reinforced: the item repeated the claim of Memory, which was
	// reinforced instead of adding a copy.
	Reinforced bool
	// Unchanged: the store already holds it (a restore whose id is there,
	// or the same claim imported, or reinforced by an import, from the same
	// file); nothing was written for it.
	Unchanged bool
	// Refused says why the item was not saved (invalid, or it holds a
	// secret); nil otherwise.
	Refused error
	// PossibleDuplicateOf is an alike memory making a different claim.
	PossibleDuplicateOf *gitstore.Memory
	// Similarity is the similarity to the reinforced or possible duplicate.
	Similarity float64
}

// BatchOptions configure RememberBatch.
type BatchOptions struct {
	// Op and Subject describe the commit (Memory-Op trailer and subject).
	Op, Subject string
	// DryRun plans every item and writes nothing.
	DryRun bool
}

// BatchResult is what RememberBatch did.
type BatchResult struct {
	// Outcomes holds one outcome per item, in order.
	Outcomes []BatchOutcome
	// Commit is the commit written ("" in a dry run or when nothing changed).
	Commit string
}

// RememberBatch saves many memories in store in one commit, each as
// Access.Remember would: validated and scanned for secrets (an item that fails is
// refused with the reason; the others are saved), and reinforcing a current
// memory of the same type that is a near-duplicate (Similarity >=
// DuplicateSimilarity) making the same claim, whether it was in the store
// before or saved earlier in the same batch. Unlike Access.Remember, which asks
// recall for the ten most similar memories, it compares each item with every
// current memory of its type that could reach the threshold (found through
// their rarest shared words), so a batch of thousands costs seconds. A
// restored memory is compared only with the memories the store held before,
// so an export read back keeps every memory it had.
func RememberBatch(ctx context.Context, set *gitstore.Set, store *gitstore.Store, w gitstore.Writer, items []BatchItem, o BatchOptions) (*BatchResult, error) {
	rd, err := store.Read()
	if err != nil {
		return nil, err
	}
	all, err := rd.All()
	if err != nil {
		return nil, err
	}
	now := store.Repo.Now()
	known := make(map[string]bool, len(all))
	dd := newDeduper()
	for _, m := range all {
		known[m.ID] = true
		if m.Current(now) {
			dd.add(m, false)
		}
	}
	restoring := map[string]*gitstore.Memory{}
	res := &BatchResult{Outcomes: make([]BatchOutcome, len(items))}
	var entries []gitstore.BatchEntry
	var entryOf []int // item index of each entry
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out := &res.Outcomes[i]
		n := it.New
		if err := n.Validate(); err != nil {
			out.Refused = err
			continue
		}
		if it.Restore == nil && it.ID != "" && known[it.ID] {
			if m, err := rd.Get(it.ID); err == nil {
				out.Memory, out.Unchanged = m, true
				continue
			}
		}
		if it.Restore != nil && known[it.Restore.ID] {
			m, err := rd.Get(it.Restore.ID)
			if err != nil {
				m = restoring[it.Restore.ID] // twice in the batch
			}
			out.Memory, out.Unchanged = m, true
			continue
		}
		var similar *dedupeEntry
		var best float64
		if it.Restore == nil || it.Restore.Current(now) {
			// a superseded or expired memory brought back reinforces nothing
			similar, best = dd.best(n.Type, n.Text, it.Restore != nil)
		}
		e := gitstore.BatchEntry{New: n, Restore: it.Restore}
		switch {
		case similar != nil && SameClaim(n.Text, similar.m.Text) && n.Origin != nil && similar.m.ImportedFrom(n.Origin.File):
			out.Memory, out.Unchanged, out.Similarity = similar.m, true, best
			continue
		case similar != nil && SameClaim(n.Text, similar.m.Text):
			e.Reinforce = similar.m.ID
			out.Memory, out.Reinforced, out.Similarity = similar.m, true, best
		default:
			out.Similarity = best
			if similar != nil {
				out.PossibleDuplicateOf = similar.m
			}
			m := planned(n, it.Restore, w)
			e.ID = m.ID
			out.Memory = m
			if it.Restore != nil {
				known[m.ID], restoring[m.ID] = true, m
			}
			if m.Current(now) {
				dd.add(m, it.Restore != nil)
			}
		}
		entries = append(entries, e)
		entryOf = append(entryOf, i)
	}
	if o.DryRun || len(entries) == 0 {
		return res, nil
	}
	br, err := store.WriteBatch(ctx, w, o.Op, o.Subject, entries)
	if err != nil {
		return nil, err
	}
	for k, m := range br.Memories {
		if m == nil {
			continue
		}
		out := &res.Outcomes[entryOf[k]]
		// the memory to reinforce may have been forgotten meanwhile: then it was added
		out.Memory, out.Reinforced = m, br.Reinforced[k]
	}
	res.Commit = br.Commit
	// the next hook (a process without the engine) then finds the snapshot current
	_ = Refresh(ctx, set)
	EmbedMemories(ctx, set, store.Scope, br.Memories...)
	return res, nil
}

// planned is the memory an item would become, for the plan and the
// in-batch dedupe; WriteBatch builds the stored one the same way.
func planned(n gitstore.NewMemory, restore *gitstore.Memory, w gitstore.Writer) *gitstore.Memory {
	if restore != nil {
		c := *restore
		c.Type, c.Text, c.Tags, c.Paths, c.Keys = n.Type, n.Text, n.Tags, n.Paths, n.Keys
		c.Source, c.Tentative, c.Pinned = n.Source, n.Tentative, n.Pinned
		c.Trust = gitstore.StartingTrust(n.Source, n.Tentative)
		if c.Origin == nil {
			c.Origin = n.Origin
		}
		return &c
	}
	return &gitstore.Memory{
		Schema: gitstore.SchemaVersion, ID: gitstore.NewID(), Type: n.Type, Text: n.Text, Tags: n.Tags, Paths: n.Paths, Keys: n.Keys,
		Source: n.Source, Tentative: n.Tentative, Pinned: n.Pinned, Trust: gitstore.StartingTrust(n.Source, n.Tentative),
		Agent: w.Agent, Subagent: w.Subagent, Session: w.Session, Anchor: n.Anchor, ValidTo: n.ValidTo, Origin: n.Origin,
	}
}

// deduper finds, among the memories it holds, the most similar one of a
// type. Similarity is a Dice coefficient of claim skeletons, so a memory can
// reach DuplicateSimilarity only if it shares enough of the new text's
// skeleton words: at least c = ⌈t·n/(2−t)⌉ of its n words. It then holds at
// least one of any n−c+1 of them, and only the memories holding one of the
// n−c+1 rarest need comparing (prefix filtering). When even the rarest
// words are common to many memories (a list of items drawn from a few
// words), each word's newest maxDedupeScan holders are compared, so that a
// batch costs time in proportion to its size: a near-duplicate among
// thousands of alike memories may go unnoticed, never a copy, which is
// looked up by its whole skeleton first.
type deduper struct {
	entries  []dedupeEntry
	postings map[string][]int // type + "\x00" + word -> entries
	exact    map[string]int   // type + the sorted skeleton -> the first entry holding it
	compared int              // memories compared, for the tests
}

// maxDedupeScan bounds the holders of one word a new memory is compared with.
const maxDedupeScan = 256

type dedupeEntry struct {
	m        *gitstore.Memory
	words    map[string]bool
	restored bool
}

func newDeduper() *deduper { return &deduper{postings: map[string][]int{}, exact: map[string]int{}} }

// skeletonKey names a skeleton of a type: the same words, the same key.
func skeletonKey(typ string, words map[string]bool) string {
	sorted := make([]string, 0, len(words))
	for w := range words {
		sorted = append(sorted, w)
	}
	sort.Strings(sorted)
	return typ + "\x00" + strings.Join(sorted, " ")
}

func (d *deduper) add(m *gitstore.Memory, restored bool) {
	words := skeleton(m.Text)
	d.entries = append(d.entries, dedupeEntry{m: m, words: words, restored: restored})
	if k := skeletonKey(m.Type, words); len(words) > 0 {
		if _, held := d.exact[k]; !held {
			d.exact[k] = len(d.entries) - 1
		}
	}
	for w := range words {
		k := m.Type + "\x00" + w
		d.postings[k] = append(d.postings[k], len(d.entries)-1)
	}
}

// best returns the most similar memory of the type at or above
// DuplicateSimilarity (the first held on a tie), and its similarity;
// skipRestored leaves out memories restored earlier in the batch.
func (d *deduper) best(typ, text string, skipRestored bool) (*dedupeEntry, float64) {
	words := skeleton(text)
	n := len(words)
	if n == 0 {
		return nil, 0
	}
	if at, ok := d.exact[skeletonKey(typ, words)]; ok && !(skipRestored && d.entries[at].restored) {
		return &d.entries[at], 1 // a copy: no memory is more alike, and it was held first
	}
	t := DuplicateSimilarity
	need := int(math.Ceil(t*float64(n)/(2-t) - 1e-9))
	probe := make([]string, 0, n)
	for w := range words {
		probe = append(probe, typ+"\x00"+w)
	}
	sort.Slice(probe, func(i, j int) bool {
		if li, lj := len(d.postings[probe[i]]), len(d.postings[probe[j]]); li != lj {
			return li < lj
		}
		return probe[i] < probe[j]
	})
	probe = probe[:n-need+1]
	var found *dedupeEntry
	best, bestAt := 0.0, -1
	seen := map[int]bool{}
	for _, k := range probe {
		holders := d.postings[k]
		for i := len(holders) - 1; i >= max(0, len(holders)-maxDedupeScan); i-- {
			at := holders[i]
			if seen[at] {
				continue
			}
			seen[at] = true
			e := &d.entries[at]
			if skipRestored && e.restored {
				continue
			}
			d.compared++
			common := 0
			for w := range words {
				if e.words[w] {
					common++
				}
			}
			sim := 2 * float64(common) / float64(n+len(e.words))
			if sim >= DuplicateSimilarity && (sim > best || sim == best && at < bestAt) {
				found, best, bestAt = e, sim, at
			}
		}
	}
	return found, best
}
