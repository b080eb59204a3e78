package embedding

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/lockfile"
)

// BackoffWindow is how long nothing is asked of an endpoint after it
// failed: a dead endpoint then costs a hook nothing but one stat.
const BackoffWindow = 2 * time.Minute

// ErrBackoff is returned instead of asking an endpoint that failed less
// than BackoffWindow ago.
var ErrBackoff = errors.New("the embedding endpoint failed recently; recall is lexical only until it answers")

// State is the endpoint's failure, kept in <git common dir>/mem/vectors/state.json
// while it lasts.
type State struct {
	URL   string    `json:"url"`
	Since time.Time `json:"since"`
	Last  time.Time `json:"last"`
	Error string    `json:"error"`
	// Reported is set once the failure was written to hooks.log.
	Reported bool `json:"reported,omitempty"`
}

func (e *Embedder) statePath() string { return filepath.Join(e.dir, "state.json") }

// State returns the endpoint's current failure, or nil when it last
// answered (or was never asked).
func (e *Embedder) State() *State {
	data, err := os.ReadFile(e.statePath())
	if err != nil {
		return nil
	}
	var s State
	if json.Unmarshal(data, &s) != nil || s.URL != gitstore.RedactURL(e.cfg.URL) {
		return nil // another endpoint's failure says nothing of this one
	}
	return &s
}

// failed records a failure of the endpoint (the first one starts it).
func (e *Embedder) failed(err error, now time.Time) {
	s := e.State()
	if s == nil {
		s = &State{URL: gitstore.RedactURL(e.cfg.URL), Since: now}
	}
	s.Last, s.Error = now, err.Error()
	e.saveState(s)
}

// answered clears the failure, if there was one.
func (e *Embedder) answered() {
	if err := os.Remove(e.statePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
}

func (e *Embedder) saveState(s *State) {
	data, err := json.Marshal(s)
	if err != nil {
		return
	}
	_ = lockfile.WriteAtomic(e.statePath(), data, 0o600) // best effort: worst case, the endpoint is asked again
}

// backingOff returns ErrBackoff (with the failure) when the endpoint failed
// less than BackoffWindow before now.
func (e *Embedder) backingOff(now time.Time) error {
	s := e.State()
	if s == nil || now.Sub(s.Last) >= BackoffWindow || now.Before(s.Last) {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrBackoff, s.Error)
}

// Unreported returns the endpoint's current failure when it was not yet
// reported, and marks it reported: a hook writes it to hooks.log once per
// outage. It returns "" (reading no file) for a repository without
// embeddings configured.
func Unreported(repo *gitstore.Repo) string {
	e := Open(repo)
	if e == nil {
		return ""
	}
	s := e.State()
	if s == nil || s.Reported {
		return ""
	}
	s.Reported = true
	e.saveState(s)
	return fmt.Sprintf("embeddings unavailable since %s, recall is lexical only: %s", s.Since.UTC().Format(time.RFC3339), s.Error)
}
