package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memview"
)

// toJSON is the --json shape of a memory (memview.View, the shape the MCP
// tools return too); scripts depend on it.
// displayID is the display id of a memory: unique in every store of set,
// as git mem show resolves a prefix across them.
func displayID(set *gitstore.Set, id string) string {
	if short, err := set.ShortIDs([]string{id}); err == nil {
		return short[id]
	}
	return gitstore.Clip(id, gitstore.MinShownPrefix)
}

func toJSON(m *gitstore.Memory, short string, now time.Time) memview.View {
	return memview.New(m, short, now)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// scopeLabel is shown after a memory outside the project scope.
func scopeLabel(m *gitstore.Memory) string {
	if m.Scope() == gitstore.ScopeProject || m.Scope() == "" {
		return ""
	}
	return " [" + string(m.Scope()) + "]"
}

// memoryLine is the one-line listing of a memory.
func memoryLine(m *gitstore.Memory, short string, now time.Time) string {
	retired := ""
	if m.Retired(now) {
		retired = " (superseded)"
		if m.SupersededBy == "" {
			retired = " (expired)"
		}
	}
	return terminalSafe(fmt.Sprintf("%s  %-10s %s  trust %.2f%s%s", short, m.Type, gitstore.Summary(m.Text, 90), m.EffectiveTrust(now), retired, scopeLabel(m)), false)
}

// writeMemory prints every field of a memory for git mem show; every line
// passes through terminalSafe.
func writeMemory(out io.Writer, set *gitstore.Set, m *gitstore.Memory, short string, now time.Time) {
	w := lineEscaper{out}
	fmt.Fprintf(w, "id:        %s (%s)\n", m.ID, short)
	fmt.Fprintf(w, "scope:     %s\n", m.Scope())
	fmt.Fprintf(w, "type:      %s\n", m.Type)
	src := m.Source
	if m.Tentative {
		src += ", tentative"
	}
	fmt.Fprintf(w, "source:    %s\n", src)
	fmt.Fprintf(w, "trust:     %.2f (started at %.2f)\n", m.EffectiveTrust(now), m.Trust)
	if len(m.Keys) > 0 {
		fmt.Fprintf(w, "keys:      %s\n", terminalSafe(strings.Join(m.Keys, "; "), false))
	}
	if len(m.Tags) > 0 {
		fmt.Fprintf(w, "tags:      %s\n", strings.Join(m.Tags, ", "))
	}
	if len(m.Paths) > 0 {
		fmt.Fprintf(w, "paths:     %s\n", strings.Join(m.Paths, ", "))
	}
	by := m.Author
	if m.Agent != "" {
		by += " via " + m.Agent
	}
	fmt.Fprintf(w, "by:        %s\n", by)
	if m.Anchor != nil {
		fmt.Fprintf(w, "anchor:    %s\n", anchorText(m.Anchor))
	}
	if m.Origin != nil {
		fmt.Fprintf(w, "from:      %s:%d (imported)\n", m.Origin.File, m.Origin.Line)
	}
	fmt.Fprintf(w, "created:   %s\n", m.Created.Format(time.RFC3339))
	if !m.Updated.Equal(m.Created) {
		fmt.Fprintf(w, "updated:   %s\n", m.Updated.Format(time.RFC3339))
	}
	valid := "since " + m.ValidFrom.Format(time.RFC3339)
	if m.ValidTo != nil {
		valid = m.ValidFrom.Format(time.RFC3339) + " to " + m.ValidTo.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "valid:     %s\n", valid)
	fmt.Fprintf(w, "version:   %s\n", m.Version())
	if m.Supersedes != "" {
		fmt.Fprintf(w, "replaces:  %s\n", m.Supersedes)
	}
	if m.SupersededBy != "" {
		fmt.Fprintf(w, "replaced:  by %s (git mem show %s)\n", m.SupersededBy, displayID(set, m.SupersededBy))
	}
	for _, e := range m.Events {
		reason := ""
		if e.Reason != "" {
			reason = ": " + e.Reason
		}
		fmt.Fprintf(w, "event:     %s %s by %s%s\n", e.At.Format(time.RFC3339), e.Op, firstNonEmpty(e.Agent, e.Author), reason)
	}
	fmt.Fprintf(out, "\n%s\n", terminalSafe(m.Text, true))
}

// lineEscaper writes one-line output through terminalSafe; each write is one
// line ending in a newline.
type lineEscaper struct{ w io.Writer }

func (l lineEscaper) Write(p []byte) (int, error) {
	s := string(p)
	line, nl := strings.CutSuffix(s, "\n")
	out := terminalSafe(line, false)
	if nl {
		out += "\n"
	}
	if _, err := io.WriteString(l.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// anchorText renders the code state a memory was written against.
func anchorText(a *gitstore.Anchor) string {
	switch {
	case a.Commit == "":
		return "branch " + a.Branch + ", before its first commit"
	case a.Branch == "":
		return gitstore.Clip(a.Commit, 10) + " (detached HEAD)"
	}
	return gitstore.Clip(a.Commit, 10) + " on " + a.Branch
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
