package embedding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/git-mem/git-mem/secret"
)

// minRequestTime is the least time left before a context's deadline for a
// request to be started at all.
const minRequestTime = 50 * time.Millisecond

// queries remembers this process's recent query vectors (a recall with
// several phrasings, git mem add's duplicate check then its write).
var queries struct {
	sync.Mutex
	m map[string][]float32
}

const maxRemembered = 256

// ErrSecret is returned for a text the secret scanner flags: it is never
// sent to the endpoint.
var ErrSecret = errors.New("the text looks like it holds a credential; it is not sent to the embedding endpoint")

// Query embeds a query within ctx and the configured timeout, unless the
// endpoint failed in the last BackoffWindow. A failure is recorded (see
// State) and returned; the caller answers lexically.
func (e *Embedder) Query(ctx context.Context, text string, now time.Time) ([]float32, error) {
	mk := e.cfg.URL + "\x00" + e.cfg.Model + "\x00" + text
	queries.Lock()
	v := queries.m[mk]
	queries.Unlock()
	if v != nil {
		return v, nil
	}
	if len(secret.Scan(text)) > 0 {
		return nil, ErrSecret
	}
	vs, err := e.embed(ctx, []string{text}, now)
	if err != nil {
		return nil, err
	}
	queries.Lock()
	if queries.m == nil || len(queries.m) >= maxRemembered {
		queries.m = map[string][]float32{}
	}
	queries.m[mk] = vs[0]
	queries.Unlock()
	return vs[0], nil
}

// embed asks the endpoint within ctx and the timeout, honouring and
// keeping the back-off state.
func (e *Embedder) embed(ctx context.Context, texts []string, now time.Time) ([][]float32, error) {
	if !e.eager {
		if err := e.backingOff(now); err != nil {
			return nil, err
		}
	}
	timeout := e.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if left < minRequestTime {
			return nil, fmt.Errorf("%w: no time left to ask it", ErrEndpoint)
		}
		// a hook keeps half of what is left for everything else
		timeout = min(timeout, left/2)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vs, err := e.request(rctx, texts)
	if err != nil {
		if ctx.Err() == nil { // the caller's own deadline is not the endpoint's fault
			e.failed(err, now)
		}
		return nil, err
	}
	e.answered()
	return vs, nil
}

// Item is a memory to embed: its key in the cache (scope:id) and its text.
type Item struct {
	Key  string
	Text string
}

// FillResult says what Fill did.
type FillResult struct {
	// Embedded is how many texts the endpoint embedded; Reused how many
	// vectors were already cached under another key; Skipped how many texts
	// the secret scanner kept from the endpoint.
	Embedded, Reused, Skipped int
}

// Fill caches a vector for every item without one for its current text,
// asking the endpoint in batches; progress, when set, is told how many of
// the items are done. On a failure, what was embedded so far is kept.
func (e *Embedder) Fill(ctx context.Context, items []Item, now time.Time, progress func(done, total int)) (FillResult, error) {
	var res FillResult
	path := e.CachePath()
	c, err := load(path)
	if err != nil {
		return res, err
	}
	var todo []Item
	var reuse []record
	same := map[Hash][]string{} // other keys of a text being embedded
	for _, it := range items {
		h := HashOf(it.Text)
		if slot, ok := c.byKey[it.Key]; ok && c.hashes[slot] == h {
			continue
		}
		if slot, ok := c.byHash[h]; ok {
			reuse = append(reuse, record{hash: h, key: it.Key, inv: c.inv[slot], vec: append([]byte(nil), c.vector(slot)...)})
			continue
		}
		if keys, ok := same[h]; ok {
			same[h] = append(keys, it.Key)
			continue
		}
		if len(secret.Scan(it.Text)) > 0 {
			res.Skipped++
			continue
		}
		same[h] = nil
		todo = append(todo, it)
	}
	if err := appendRecords(path, reuse); err != nil {
		return res, err
	}
	res.Reused = len(reuse)
	done := len(items) - len(todo)
	if progress != nil {
		progress(done, len(items))
	}
	for start := 0; start < len(todo); start += batchSize {
		batch := todo[start:min(start+batchSize, len(todo))]
		texts := make([]string, len(batch))
		for i, it := range batch {
			texts[i] = it.Text
		}
		vs, err := e.embed(ctx, texts, now)
		if err != nil {
			return res, err
		}
		if c.dim != 0 && len(vs[0]) != c.dim {
			err := fmt.Errorf("%w: model %q now answers %d-dimensional vectors where the cache holds %d; if the model changed, delete %s or name the new model in git config mem.embed.model", ErrEndpoint, e.cfg.Model, len(vs[0]), c.dim, path)
			e.failed(err, now)
			return res, err
		}
		var rs []record
		for i, it := range batch {
			h := HashOf(it.Text)
			q, inv := quantize(vs[i])
			rs = append(rs, record{hash: h, key: it.Key, inv: inv, vec: q})
			for _, k := range same[h] {
				rs = append(rs, record{hash: h, key: k, inv: inv, vec: q})
				res.Reused++
			}
		}
		if err := appendRecords(path, rs); err != nil {
			return res, err
		}
		if c, err = load(path); err != nil {
			return res, err
		}
		res.Embedded += len(batch)
		done += len(batch)
		if progress != nil {
			progress(done, len(items))
		}
	}
	return res, nil
}

// Match is a cached vector near a query.
type Match struct {
	Key  string
	Hash Hash
	// Score is the cosine similarity, -1..1.
	Score float64
}

// Search returns the k cached vectors most similar to the unit vector q
// with a similarity of at least floor, best first: an exact, brute-force
// scan (docs/architecture.md gives its cost at 100,000 memories).
func (e *Embedder) Search(ctx context.Context, q []float32, k int, floor float64) ([]Match, error) {
	if err := e.fits(ctx); err != nil {
		return nil, err
	}
	c, err := load(e.CachePath())
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.keys) == 0 {
		return nil, nil
	}
	if len(q) != c.dim {
		return nil, fmt.Errorf("%w: the query vector has %d dimensions, the cache %d", ErrEndpoint, len(q), c.dim)
	}
	return c.search(q, k, floor), nil
}

// readRate is a conservative estimate of how fast a vector file is read
// and decoded (BenchmarkLoad100k measures ~250 MB/s on a loaded 2-core
// machine).
const readRate = 200 << 20

// fits returns an error when the part of the vector file this process has
// not read cannot be read in half the time ctx has left: a hook then
// answers lexically rather than late.
func (e *Embedder) fits(ctx context.Context) error {
	dl, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	st, err := os.Stat(e.CachePath())
	if err != nil {
		return nil // nothing to read
	}
	unread := st.Size()
	opened.Lock()
	if c := opened.m[e.CachePath()]; c != nil && os.SameFile(c.info, st) {
		unread -= c.off
	}
	opened.Unlock()
	if need := time.Duration(float64(unread) / readRate * float64(time.Second)); need > time.Until(dl)/2 {
		return fmt.Errorf("the vector cache (%d MiB) cannot be read in the time left", st.Size()>>20)
	}
	return nil
}

func (c *cache) search(q []float32, k int, floor float64) []Match {
	var out []Match
	for slot, v := range c.vecs {
		v, q := v[:len(q)], q[:len(v)] // one bounds check for the loop
		var d0, d1, d2, d3 float32
		i := 0
		for ; i+4 <= len(v); i += 4 {
			d0 += q[i] * float32(int8(v[i]))
			d1 += q[i+1] * float32(int8(v[i+1]))
			d2 += q[i+2] * float32(int8(v[i+2]))
			d3 += q[i+3] * float32(int8(v[i+3]))
		}
		for ; i < len(v); i++ {
			d0 += q[i] * float32(int8(v[i]))
		}
		dot := d0 + d1 + d2 + d3
		s := float64(dot * c.inv[slot])
		if s < floor {
			continue
		}
		out = append(out, Match{Key: c.keys[slot], Hash: c.hashes[slot], Score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Key < out[j].Key
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// Count is how many keys have a cached vector under the configured model.
func (e *Embedder) Count() (int, error) {
	c, err := load(e.CachePath())
	if err != nil {
		return 0, err
	}
	return len(c.keys), nil
}

// Check asks the endpoint to embed one word within the configured timeout,
// ignoring the back-off window (git mem doctor).
func (e *Embedder) Check(ctx context.Context, now time.Time) error {
	rctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	_, err := e.request(rctx, []string{"git-mem doctor"})
	if err != nil {
		e.failed(err, now)
		return err
	}
	e.answered()
	return nil
}

// Eager makes the embedder ask the endpoint even within the back-off
// window: git mem reindex, which the user ran to fill the cache.
func (e *Embedder) Eager() { e.eager = true }

// Dir is the vector cache's directory.
func (e *Embedder) Dir() string { return e.dir }
