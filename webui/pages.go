package webui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
)

//go:embed assets
var assets embed.FS

// pageSet is the page's templates, parsed once.
type pageSet struct {
	t      *template.Template
	static fs.FS
}

func loadPages() (*pageSet, error) {
	t, err := template.New("").Funcs(template.FuncMap{
		"when":    when,
		"changed": func(a, b time.Time) bool { return !a.Equal(b) },
		"split":   strings.Fields,
		"person":  func(s string) string { name, _, _ := strings.Cut(s, " <"); return name },
		"rows":    func(base string, rs []row) rowsView { return rowsView{base, rs} },
		"trust":   func(f float64) string { return fmt.Sprintf("%.2f", f) },
		"summary": func(s string) string { return gitstore.Summary(s, 160) },
		"short":   func(s string) string { return gitstore.Clip(s, 10) },
		"join":    strings.Join,
	}).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, fmt.Errorf("webui: the page templates do not parse: %w", err)
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	return &pageSet{t: t, static: static}, nil
}

// when shows a time (or a time pointer) to the minute, in UTC.
func when(v any) string {
	switch t := v.(type) {
	case time.Time:
		return t.UTC().Format("2006-01-02 15:04")
	case *time.Time:
		if t != nil {
			return t.UTC().Format("2006-01-02 15:04")
		}
	}
	return ""
}

// rowsView is a list of memories with the page's base for its links.
type rowsView struct {
	Base string
	Rows []row
}

// page is what every view shows around its own part.
type page struct {
	Base     string
	Title    string
	Nav      string
	Tips     string
	ReadOnly bool
	// Flash says what the last action did; Problem what went wrong.
	Flash, Problem string
	Data           any
}

// render writes one view; a template error is the server's own fault.
func (s *Server) render(w http.ResponseWriter, status int, name string, p *page) {
	p.Base = s.base()
	p.ReadOnly = s.opts.ReadOnly
	var b bytes.Buffer
	if err := s.pages.t.ExecuteTemplate(&b, name, p); err != nil {
		http.Error(w, "the page could not be drawn: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fail shows an error in the page's words.
func (s *Server) fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, memerr.ErrChanged):
		status = http.StatusConflict
	case errors.Is(err, memerr.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, memerr.ErrInvalid), errors.Is(err, memerr.ErrSecret):
		status = http.StatusBadRequest
	case errors.Is(err, memerr.ErrBusy):
		status = http.StatusServiceUnavailable
	case errors.Is(err, errReadOnly):
		status = http.StatusForbidden
	}
	s.render(w, status, "problem", &page{Title: "Problem", Problem: words(err)})
}

var (
	errReadOnly = errors.New("this page is read-only (git mem ui --read-only): run git mem ui without it to change memories")
)

// words is an error as the page says it: the store's facts, and what to
// do next with the page rather than with the CLI's commands.
func words(err error) string {
	msg := err.Error()
	var secret *memerr.SecretError
	notFound := err
	for notFound != nil && errors.Unwrap(notFound) != memerr.ErrNoMemory {
		notFound = errors.Unwrap(notFound)
	}
	switch {
	case errors.Is(err, memerr.ErrChanged):
		return "the memory changed since the page showed it (an agent, a pull or another tab changed it): nothing was written. The page now shows its current state; look at it and act again."
	case errors.As(err, &secret):
		return secret.Error() + ". Memory is shared through git, so it never stores credentials: nothing was written. Remove it from the text (say where the secret lives instead)."
	case notFound != nil:
		return notFound.Error() + ": it was forgotten or purged, or the id is wrong. Go back to Memories."
	case errors.Is(err, memerr.ErrBusy):
		return msg + ": nothing is broken; try again in a moment."
	}
	return msg
}

// tipsOf is one word for the tips of every store: the page reloads when
// it changes.
func tipsOf(set *gitstore.Set) string {
	tips, err := index.Tips(set.Stores())
	if err != nil {
		return ""
	}
	keys := make([]string, 0, len(tips))
	for k := range tips {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, tips[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
