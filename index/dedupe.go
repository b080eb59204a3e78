package index

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index/snapshot"
)

// DuplicateSimilarity is the similarity at or above which a new memory is a
// near-duplicate of an existing one of the same type.
const DuplicateSimilarity = 0.85

// Similarity measures how alike two memory texts are, from 0 to 1: the Dice
// coefficient 2|A∩B|/(|A|+|B|) of their claim skeletons. A skeleton is the set
// of lower-cased words with every number replaced by "#", negations and the
// auxiliary do/does/did dropped, and each word reduced to its English stem. So case, spacing and
// punctuation variants score 1, and so do "port 8080" and "port 8081" or
// "we use npm" and "we do not use npm": they are alike in form, and whether
// they make the same claim is SameClaim's question.
func Similarity(a, b string) float64 { return skeletonSimilarity(skeleton(a), skeleton(b)) }

// skeletonSimilarity is Similarity of two skeletons: the duplicate check
// compares one new text with many memories, and builds its skeleton once.
func skeletonSimilarity(sa, sb map[string]bool) float64 {
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	common := 0
	for w := range sa {
		if sb[w] {
			common++
		}
	}
	return 2 * float64(common) / float64(len(sa)+len(sb))
}

// SameClaim reports whether two alike texts say the same thing: the same
// numbers in the same order ("memory 3 of writer 5" is not "memory 5 of
// writer 3"), the same polarity (both negated or neither), and the key words of
// one contained in the other's.
func SameClaim(a, b string) bool {
	ta, tb := claimTokens(a), claimTokens(b)
	if !slices.Equal(ta.numbers, tb.numbers) || ta.negated != tb.negated {
		return false
	}
	return subset(ta.keys, tb.keys) || subset(tb.keys, ta.keys)
}

var negations = wordList{"cannot", "never", "no", "none", "nor", "not", "without"}

var auxiliaries = wordList{"did", "do", "does"}

// words splits text into lower-case words, turning "n't" into a separate "not".
func words(text string) []string {
	text = strings.ToLower(text)
	text = strings.ReplaceAll(text, "n't", " not")
	text = strings.ReplaceAll(text, "n’t", " not")
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func hasDigit(w string) bool { return strings.IndexFunc(w, unicode.IsDigit) >= 0 }

func skeleton(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(text) {
		switch {
		case negations.has(w) || auxiliaries.has(w):
		case hasDigit(w):
			out["#"] = true
		default:
			out[stem(w)] = true
		}
	}
	return out
}

type claim struct {
	numbers []string
	negated bool
	keys    map[string]bool
}

func claimTokens(text string) claim {
	c := claim{keys: map[string]bool{}}
	for _, w := range words(text) {
		switch {
		case negations.has(w):
			c.negated = !c.negated
		case auxiliaries.has(w):
		case hasDigit(w):
			c.numbers = append(c.numbers, w)
		case !stopWords.has(w):
			c.keys[stem(w)] = true
		}
	}
	return c
}

func subset(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// stopWords are left out of a claim's key words.
var stopWords = wordList{
	"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "i", "if", "in",
	"is", "it", "its", "of", "on", "or", "our", "so", "that", "the", "then", "they", "this", "to",
	"us", "was", "we", "were", "with", "you", "your",
}

// Outcome is what Remember did.
type Outcome struct {
	// Memory is the saved memory, or the existing one that was reinforced.
	Memory *gitstore.Memory
	// Reinforced reports that the text repeated an existing memory's claim.
	Reinforced bool
	// PossibleDuplicateOf is an alike memory making a different claim: the
	// agent may want to supersede it with the new one.
	PossibleDuplicateOf *gitstore.Memory
	// Similarity is the similarity to the reinforced or possible duplicate.
	Similarity float64
}

func remember(ctx context.Context, set *gitstore.Set, store *gitstore.Store, w gitstore.Writer, n gitstore.NewMemory, acc Access) (*Outcome, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	var similar *gitstore.Memory
	var view *snapView // what the duplicate check read, brought forward over the write
	best := 0.0
	if n.Supersedes == "" {
		var ok bool
		similar, best, view, ok = similarInSnapshot(ctx, set, store.Scope, n.Type, n.Text, store.Repo.Now(), acc)
		if !ok {
			// no snapshot to count in (a store without a directory): the
			// most relevant memories to the text, as recall ranks them
			var res *Result
			err := snapshot.FaultsAsErrors(func() (err error) {
				res, err = Recall(ctx, set, Options{Query: n.Text, Limit: 10, NoStale: true, Point: Unfiltered, noEngine: true, Access: acc})
				return err
			})
			if err != nil {
				return nil, err
			}
			for _, h := range res.Hits {
				m := h.Memory
				if h.Scope != store.Scope || m.Type != n.Type {
					continue
				}
				if sim := Similarity(n.Text, m.Text); sim >= DuplicateSimilarity && sim > best {
					similar, best = m, sim
				}
			}
		}
	}
	if similar != nil && SameClaim(n.Text, similar.Text) {
		m, err := store.Reinforce(ctx, w, similar.ID)
		if err != nil {
			closeView(view)
			return nil, err
		}
		_ = refreshFrom(ctx, set, view, acc) // best effort: a stale snapshot is brought forward by its next reader
		return &Outcome{Memory: m, Reinforced: true, Similarity: best}, nil
	}
	m, err := store.Add(ctx, w, n)
	if err != nil {
		closeView(view)
		return nil, err
	}
	// the next hook (a process without the engine) then finds the snapshot current
	_ = refreshFrom(ctx, set, view, acc)
	EmbedMemories(ctx, set, store.Scope, m)
	return &Outcome{Memory: m, PossibleDuplicateOf: similar, Similarity: best}, nil
}
