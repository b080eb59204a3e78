package cmd

import (
	"fmt"
	"io"
	"strings"
)

// progressBar draws one line of progress on stderr, and only when stderr is
// a terminal: stdout stays the command's answer, and a log or a pipe gets no
// carriage returns. A nil *progressBar draws nothing, so callers need no test.
type progressBar struct {
	w     io.Writer
	label string
	drawn bool
}

// newProgress returns the progress bar for a long command, or nil when
// stderr is not a terminal (or quiet is set, e.g. for --json).
func newProgress(env *Env, label string, quiet bool) *progressBar {
	if !env.ErrTerminal || quiet {
		return nil
	}
	return &progressBar{w: env.Err, label: label}
}

// Update redraws the bar at done of total (total 0: unknown, a full bar).
func (p *progressBar) Update(done, total int) {
	if p == nil {
		return
	}
	const width = 30
	filled := width
	if total > 0 {
		filled = min(max(done*width/total, 0), width)
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
	p.drawn = true
}

// Done ends the bar's line, so what follows starts on a line of its own.
func (p *progressBar) Done() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprintln(p.w)
	p.drawn = false
}
