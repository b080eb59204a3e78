package linkstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// ScopePrefix starts the scope of a linked store's memories: "org:NAME".
const ScopePrefix = gitstore.ScopeLinkedPrefix

// Config keys: mem.link.NAME.url, mem.link.NAME.write, mem.link.refresh.
const (
	configSection = "mem"
	keyURL        = "url"
	keyWrite      = "write"
	keyAgents     = "agents"
	keyRefresh    = "link.refresh"
)

// DefaultRefresh is how often a linked store is fetched when
// mem.link.refresh is not set.
const DefaultRefresh = 60 * time.Minute

// MaxNameBytes bounds a link's NAME.
const MaxNameBytes = 40

// Link is one linked store of a repository.
type Link struct {
	// Name labels the link; its memories have the scope "org:Name".
	Name string
	// URL is where the org store is: a URL, or an absolute path.
	URL string
	// Write: memories may be written to it.
	Write bool
	// Agents: agents may write to it too, through the MCP server's
	// memory_add with store "org:NAME" (only with Write): the user
	// decides, never the model.
	Agents bool
}

// Scope is the scope the link's memories are read with.
func (l Link) Scope() gitstore.Scope { return gitstore.Scope(ScopePrefix + l.Name) }

// NameOf returns the link NAME of a scope "org:NAME", and whether it is one.
func NameOf(s gitstore.Scope) (string, bool) {
	return strings.CutPrefix(string(s), ScopePrefix)
}

// CheckName refuses a NAME that is not a short label.
func CheckName(name string) error {
	bad := func(reason string) error {
		return &memerr.InvalidInputError{Field: "link name", Value: name, Reason: reason}
	}
	switch {
	case name == "":
		return bad("the link name is empty; give a short label such as acme")
	case len(name) > MaxNameBytes:
		return bad(fmt.Sprintf("the link name %q is longer than %d bytes", clip(name), MaxNameBytes))
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return bad(fmt.Sprintf("the link name %q may hold only letters, digits, - and _, and start with a letter or digit", clip(name)))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// CheckURL refuses a URL that git would read as an option or a remote
// helper, or whose host would reach ssh as an option
// (gitstore.CheckRemoteArg), and a URL carrying credentials: a password in
// any URL, a user name in an http or https URL (where it is a token). The
// URL is written to the repository's configuration and to the local copy,
// which every repository linking it reads.
func CheckURL(raw string) error {
	if err := gitstore.CheckRemoteArg(raw); err != nil {
		return err
	}
	bad := func(reason string) error {
		return &memerr.InvalidInputError{Field: "link url", Value: gitstore.RedactURL(raw), Reason: reason}
	}
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		auth := rest
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			auth = auth[:j]
		}
		if k := strings.LastIndexByte(auth, '@'); k >= 0 {
			user := auth[:k]
			s := strings.ToLower(scheme)
			if strings.Contains(user, ":") || s == "http" || s == "https" {
				return bad(fmt.Sprintf("refusing %s: the URL carries credentials; give it without them and let git's credential helper or ssh keys supply them", gitstore.RedactURL(raw)))
			}
		}
		if _, err := url.Parse(raw); err != nil {
			return bad(fmt.Sprintf("refusing %s: not a URL git can use (%v)", gitstore.RedactURL(raw), err))
		}
		return nil
	}
	// scp-like user@host:path: what comes before the @ is a user name, and
	// one holding a ":" holds a password
	head := raw
	if j := strings.IndexAny(head, `/\`); j >= 0 {
		head = head[:j]
	}
	if k := strings.LastIndexByte(head, '@'); k >= 0 && strings.Contains(head[:k], ":") {
		return bad("refusing the URL: it carries credentials; give it without them and let ssh keys supply them")
	}
	return nil
}

// NormalizeURL checks raw (CheckURL) and returns it as it is recorded: a
// local path made absolute against dir, anything else unchanged.
func NormalizeURL(raw, dir string) (string, error) {
	raw = strings.TrimSpace(raw)
	if err := CheckURL(raw); err != nil {
		return "", err
	}
	if strings.Contains(raw, "://") {
		return raw, nil
	}
	if i := strings.IndexByte(raw, ':'); i > 0 && !strings.ContainsAny(raw[:i], `/\`) && !filepath.IsAbs(raw) {
		return raw, nil // scp-like host:path
	}
	p := raw
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", &memerr.InvalidInputError{Field: "link url", Value: raw,
			Reason: fmt.Sprintf("%s is neither a URL nor a directory", p)}
	}
	return p, nil
}

// Links returns the links configured for a repository, in the order git
// reads them. A link whose NAME or URL the checks refuse (a hand edit) is
// left out and reported in bad.
func Links(r *gitstore.Repo) (links []Link, bad []error) {
	if r == nil || r.Config() == nil {
		return nil, nil
	}
	cfg := r.Config()
	for _, sub := range cfg.Subsections(configSection, keyURL) {
		name, ok := strings.CutPrefix(sub, "link.")
		if !ok {
			continue
		}
		l := Link{Name: name, URL: cfg.Get(configSection, sub, keyURL), Write: isTrue(cfg.Get(configSection, sub, keyWrite))}
		l.Agents = l.Write && isTrue(cfg.Get(configSection, sub, keyAgents))
		if err := CheckName(name); err != nil {
			bad = append(bad, fmt.Errorf("mem.link.%s: %w", clip(name), err))
			continue
		}
		if l.URL == "" {
			continue // unset by git config --unset
		}
		if err := CheckURL(l.URL); err != nil {
			bad = append(bad, fmt.Errorf("mem.link.%s.url: %w", name, err))
			continue
		}
		links = append(links, l)
	}
	return links, bad
}

// Find returns the link named name.
func Find(r *gitstore.Repo, name string) (Link, error) {
	links, _ := Links(r)
	for _, l := range links {
		if l.Name == name {
			return l, nil
		}
	}
	return Link{}, &NotLinkedError{Name: name}
}

// NotLinkedError: the repository has no link of that name. It is a
// memerr.ErrNotFound.
type NotLinkedError struct{ Name string }

func (e *NotLinkedError) Error() string {
	return fmt.Sprintf("no linked store named %q", clip(e.Name))
}

// Is makes errors.Is(err, memerr.ErrNotFound) true.
func (e *NotLinkedError) Is(target error) bool { return target == memerr.ErrNotFound }

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// RefreshInterval is mem.link.refresh, in minutes (default DefaultRefresh;
// 0: a background refresh fetches at every chance).
func RefreshInterval(r *gitstore.Repo) time.Duration {
	if r == nil || r.Config() == nil {
		return DefaultRefresh
	}
	n := r.Config().Int(configSection, keyRefresh, -1)
	if n < 0 {
		return DefaultRefresh
	}
	return time.Duration(n) * time.Minute
}

// ErrExists: a link of that name already exists with another URL.
var ErrExists = errors.New("link exists")

// Record writes a link to the repository's configuration (git config), after
// checking its NAME and URL. A link of the same NAME is replaced only when
// replace is set.
func Record(ctx context.Context, r *gitstore.Repo, l Link, replace bool) error {
	if err := CheckName(l.Name); err != nil {
		return err
	}
	if err := CheckURL(l.URL); err != nil {
		return err
	}
	if old, err := Find(r, l.Name); err == nil && old.URL != l.URL && !replace {
		return fmt.Errorf("%w: %s already links %s", ErrExists, l.Name, gitstore.RedactURL(old.URL))
	}
	if err := gitConfig(ctx, r, "config", "mem.link."+l.Name+".url", l.URL); err != nil {
		return err
	}
	if err := gitConfig(ctx, r, "config", "mem.link."+l.Name+".write", strconv.FormatBool(l.Write)); err != nil {
		return err
	}
	return gitConfig(ctx, r, "config", "mem.link."+l.Name+".agents", strconv.FormatBool(l.Write && l.Agents))
}

// Forget removes a link from the repository's configuration. The local copy
// stays: other repositories may link the same URL.
func Forget(ctx context.Context, r *gitstore.Repo, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if _, err := Find(r, name); err != nil {
		return err
	}
	return gitConfig(ctx, r, "config", "--remove-section", "mem.link."+name)
}

// gitConfig runs git config in the repository (its own file).
func gitConfig(ctx context.Context, r *gitstore.Repo, args ...string) error {
	if r.GitDir == "" {
		return fmt.Errorf("%w: links are recorded in a repository's configuration", memerr.ErrNoRepo)
	}
	full := append([]string{"--git-dir=" + r.GitDir}, args...)
	_, err := runGitCmd(ctx, r.GitEnv(), full...)
	return err
}
