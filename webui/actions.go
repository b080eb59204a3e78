package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/handoff"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

// maxForm bounds an action's form: a memory's text and keys, well under.
const maxForm = 64 << 10

// action runs one of the page's changes: the store call of its CLI verb.
// The form carries the version of the memory the page showed; a memory
// that changed since is not written over.
func (s *Server) action(w http.ResponseWriter, r *http.Request) {
	if s.opts.ReadOnly {
		s.fail(w, errReadOnly)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		s.fail(w, fmt.Errorf("%w: the form could not be read: %v", memerr.ErrInvalid, err))
		return
	}
	op := r.PathValue("op")
	id := r.PostForm.Get("id")
	s.writeMu.Lock()
	done, err := s.act(r.Context(), op, id, r.PostForm)
	s.writeMu.Unlock()
	if errors.Is(err, memerr.ErrChanged) {
		// show the memory as it is now, and say why nothing was written
		set, oerr := s.open()
		if oerr == nil {
			if d, derr := s.memoryData(r.Context(), set, id); derr == nil {
				s.render(w, http.StatusConflict, "memory", &page{Title: d.Short, Nav: "memories", Tips: tipsOf(set), Problem: words(err), Data: d})
				return
			}
		}
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	to := s.base() + "m/" + url.PathEscape(id) + "?done=" + done
	if done == "forgotten" || done == "purged" {
		to = s.base() + "?done=" + done
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// act finds the memory, checks it is the version the page showed, and
// makes the change; done names it for the next page.
func (s *Server) act(ctx context.Context, op, id string, form url.Values) (done string, err error) {
	if id == "" {
		return "", &memerr.InvalidInputError{Field: memerr.FieldID, Reason: "no memory named"}
	}
	set, err := s.open()
	if err != nil {
		return "", err
	}
	store, m, err := set.Find(id)
	if err != nil {
		return "", err
	}
	// the version is checked again on the commit a change lands on, where
	// an agent's change made since the check would otherwise be written over
	shown := form.Get("version")
	if shown == "" {
		return "", &memerr.InvalidInputError{Field: "version", Reason: "the form names no version of the memory; reload the page"}
	}
	if shown != m.Version() {
		return "", memerr.ErrChanged
	}
	ifShown := gitstore.IfVersion(shown)
	w := s.opts.Writer(set)
	switch op {
	case "confirm":
		_, err = store.Confirm(ctx, w, m.ID, ifShown)
		done = "confirmed"
	case "dispute":
		_, err = store.Dispute(ctx, w, m.ID, strings.TrimSpace(form.Get("reason")), ifShown)
		done = "disputed"
	case "revise":
		opts := []gitstore.WriteOption{ifShown}
		if form.Has("keys") {
			opts = append(opts, gitstore.WithKeys(lines(form.Get("keys"))))
		}
		// a browser sends a text area's line breaks as CRLF; a memory's
		// text holds LF only
		text := strings.ReplaceAll(form.Get("text"), "\r\n", "\n")
		if text == m.Text {
			text = "" // the keys alone, as git mem revise --key does
		}
		var rev *gitstore.Memory
		rev, err = store.Revise(ctx, w, m.ID, text, opts...)
		if err == nil {
			index.EmbedMemories(ctx, set, store.Scope, rev)
		}
		done = "revised"
	case "forget":
		_, err = store.Forget(ctx, w, m.ID, ifShown)
		done = "forgotten"
	case "purge":
		// typed confirmation: the memory's id as the page shows it
		if typed := strings.TrimSpace(form.Get("confirm")); typed == "" || !strings.HasPrefix(m.ID, strings.ToLower(typed)) || len(typed) < gitstore.MinShownPrefix {
			return "", &memerr.InvalidInputError{Field: "confirm", Reason: "type the memory's id (" + shortID(set, m.ID) + ") to purge it; nothing was erased"}
		}
		err = purge(ctx, set, store, m.ID)
		done = "purged"
	default:
		return "", &memerr.InvalidInputError{Field: "action", Value: op, Reason: "unknown action; use confirm, dispute, revise, forget or purge"}
	}
	if err != nil {
		return "", err
	}
	// what every CLI write does after it: bring the start cache forward,
	// and keep the object stores packed as git does (in the background:
	// the page is waiting)
	handoff.JournalWrites(ctx, set)
	for _, r := range []*gitstore.Repo{set.Repo, set.Personal} {
		if r != nil {
			_ = r.AutoGC(ctx, false)
		}
	}
	return done, nil
}

// purge is git mem forget --purge: rewrite the history of every memory ref
// of the memory's repository without it, record the purge so a pull never
// brings it back, scrub the caches that held the text, and ask git to prove
// that no reachable object holds it.
func purge(ctx context.Context, set *gitstore.Set, store *gitstore.Store, id string) error {
	repo := store.Repo
	// dropped first, as git mem forget --purge does: a purge stopped
	// before its scrub leaves no cache holding the text
	if err := handoff.DropCaches(set); err != nil {
		return fmt.Errorf("could not remove the caches that hold the text (delete %s and purge again): %w", index.Dir(set), err)
	}
	if _, err := repo.MarkPurge(id); err != nil {
		return err
	}
	rep, err := repo.Purge(ctx, id)
	if errors.Is(err, memerr.ErrNotFound) {
		_ = repo.PurgeFinished(id) // nothing was purged: nothing to finish
	}
	if err != nil {
		return err
	}
	if err := handoff.FinishPurge(ctx, set, repo, id); err != nil {
		return err
	}
	leaks, err := repo.ReachableLeaks(ctx, rep.Texts)
	if err != nil {
		return fmt.Errorf("purged, but could not verify it with git: %w", err)
	}
	if len(leaks) > 0 {
		return fmt.Errorf("%w: purged, but git still reaches %d object(s) holding the text (%s); they belong to refs outside refs/memory/*", memerr.ErrCorrupt, len(leaks), strings.Join(leaks, ", "))
	}
	return nil
}

// lines splits a text area into its non-empty lines.
func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
