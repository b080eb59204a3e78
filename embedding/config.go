package embedding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// Defaults of the mem.embed.* settings.
const (
	// DefaultTimeout bounds one request to the endpoint (mem.embed.timeout).
	DefaultTimeout = 2 * time.Second
	// DefaultMinScore is the cosine similarity from which a memory found
	// only by its vector is returned to a caller who asked
	// (mem.embed.minScore). It is not fitted on data: no model can be run
	// where the eval runs, so it is set high, where a real model's vectors
	// mean a paraphrase rather than a shared topic.
	DefaultMinScore = 0.80
)

// Config is the endpoint's configuration, from git config mem.embed.*.
type Config struct {
	// URL is the endpoint: a base (http://localhost:11434), its /v1, or the
	// full /v1/embeddings address.
	URL string
	// Model is the model name sent with each request.
	Model string
	// KeyEnv names the environment variable holding a key, if any.
	KeyEnv string
	// Timeout bounds one request.
	Timeout time.Duration
	// MinScore is the similarity from which a vector-only match is returned.
	MinScore float64
}

// ConfigOf reads mem.embed.url, mem.embed.model, mem.embed.keyEnv,
// mem.embed.timeout (a duration such as 2s, or milliseconds) and
// mem.embed.minScore. ok is false when the url or the model is unset.
func ConfigOf(c *gitstore.Config) (cfg Config, ok bool) {
	if c == nil {
		return cfg, false
	}
	cfg = Config{
		URL:      strings.TrimSpace(c.Get("mem", "embed", "url")),
		Model:    strings.TrimSpace(c.Get("mem", "embed", "model")),
		KeyEnv:   strings.TrimSpace(c.Get("mem", "embed", "keyEnv")),
		Timeout:  DefaultTimeout,
		MinScore: DefaultMinScore,
	}
	if cfg.URL == "" || cfg.Model == "" {
		return cfg, false
	}
	if v := strings.TrimSpace(c.Get("mem", "embed", "timeout")); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			cfg.Timeout = d
		} else if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			cfg.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if v := strings.TrimSpace(c.Get("mem", "embed", "minScore")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f < 1 {
			cfg.MinScore = f
		}
	}
	return cfg, true
}

// InjectScore is the similarity from which a vector-only match may be
// injected into a prompt nobody asked about: halfway from MinScore to 1.
func (c Config) InjectScore() float64 { return (1 + c.MinScore) / 2 }

// endpoint is the /v1/embeddings address of c.URL.
func (c Config) endpoint() (*url.URL, error) {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("git config mem.embed.url %q is not a URL; set it to the model server's address, such as http://localhost:11434", c.URL)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("git config mem.embed.url %q: only http:// is supported (a model on this machine or the local network)", gitstore.RedactURL(c.URL))
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/embeddings"):
	case strings.HasSuffix(p, "/v1"):
		p += "/embeddings"
	default:
		p += "/v1/embeddings"
	}
	u.Path = p
	return u, nil
}

// Embedder embeds texts with the configured model and keeps their vectors
// in the repository's cache.
type Embedder struct {
	cfg Config
	dir string // <git common dir>/mem/vectors
	key string
	// eager ignores the back-off window (Eager)
	eager bool
}

// Open returns the repository's embedder, or nil when mem.embed.url or
// mem.embed.model is unset or the repository has no directory: then
// nothing is read, written or asked.
func Open(repo *gitstore.Repo) *Embedder {
	if repo == nil {
		return nil
	}
	cfg, ok := ConfigOf(repo.Config())
	if !ok {
		return nil
	}
	dir := repo.Mem().Vectors()
	if dir == "" {
		return nil
	}
	e := &Embedder{cfg: cfg, dir: dir}
	if cfg.KeyEnv != "" {
		// the key's only source: an environment variable the user named,
		// read like git reads its own (GIT_CONFIG_GLOBAL); never written
		e.key = os.Getenv(cfg.KeyEnv)
	}
	return e
}

// Config is the embedder's configuration.
func (e *Embedder) Config() Config { return e.cfg }

// CachePath is the model's vector file: the model's name hashed, so that a
// change of model starts a new cache and every text is embedded again.
func (e *Embedder) CachePath() string { return cachePath(e.dir, e.cfg.Model) }

func cachePath(dir, model string) string {
	h := sha256.Sum256([]byte(model))
	return filepath.Join(dir, hex.EncodeToString(h[:8])+cacheExt)
}

// cacheExt ends every vector file's name.
const cacheExt = ".vec"
