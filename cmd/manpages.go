package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/health"
)

// manPageName is the root page: git turns "git mem --help" into "man git-mem".
const manPageName = "git-mem.1"

// writeManPages writes one man page per visible command into dir/man1 (dir
// is a man directory such as ~/.local/share/man) and returns their paths.
// The pages are generated from the commands themselves, so they say what
// this binary does.
func writeManPages(dir string) ([]string, error) {
	out := filepath.Join(dir, "man1")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", out, err)
	}
	root := newRootCmd(&Env{Streams: Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, Getenv: func(string) string { return "" }, Now: time.Now})
	root.InitDefaultHelpCmd()
	root.InitDefaultVersionFlag()
	root.Long += "\n\n" + commandList(root)
	v := Version()
	date := time.Now()
	if t, err := time.Parse(time.RFC3339, v.Time); err == nil {
		date = t
	}
	var write func(c *cobra.Command) error
	write = func(c *cobra.Command) error {
		name := manName(c)
		var b strings.Builder
		writeManPage(&b, c, date, "git-mem "+v.Version)
		if err := os.WriteFile(filepath.Join(out, name+".1"), []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("cannot write the man pages into %s: %w", out, err)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				if err := write(sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := write(root); err != nil {
		return nil, err
	}
	pages, err := filepath.Glob(filepath.Join(out, "git-mem*.1"))
	sort.Strings(pages)
	return pages, err
}

// commandList is the root page's list of commands under their headings, as
// git mem help shows them.
func commandList(root *cobra.Command) string {
	var b strings.Builder
	for _, g := range root.Groups() {
		b.WriteString(g.Title + "\n")
		for _, c := range root.Commands() {
			if c.GroupID == g.ID && c.IsAvailableCommand() {
				fmt.Fprintf(&b, "  %-11s %s\n", c.Name(), c.Short)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n\nEach command has its own page: man git-mem-COMMAND, or git mem help COMMAND."
}

// manName is a command's page name: git-mem, git-mem-add.
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// writeManPage writes c's page in the man(7) macros: name, synopsis, the
// help text (its indented lines, tables and examples, kept as they are),
// the flags and the related pages.
func writeManPage(b *strings.Builder, c *cobra.Command, date time.Time, source string) {
	name := manName(c)
	fmt.Fprintf(b, ".nh\n.TH %s \"1\" %s %s \"git-mem Manual\"\n", roffQuoted(strings.ToUpper(name)), roffQuoted(date.Format("Jan 2006")), roffQuoted(source))
	fmt.Fprintf(b, ".SH NAME\n%s \\- %s\n", name, roffText(c.Short))
	fmt.Fprintf(b, ".SH SYNOPSIS\n\\fB%s\\fP\n", roffText(strings.Replace(c.UseLine(), "git-mem", "git mem", 1)))
	long := c.Long
	if long == "" {
		long = c.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	writeRoffBlock(b, long)
	writeRoffFlags(b, "OPTIONS", c.NonInheritedFlags())
	writeRoffFlags(b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if c.Example != "" {
		b.WriteString(".SH EXAMPLE\n")
		writeRoffBlock(b, c.Example)
	}
	var related []string
	if c.HasParent() {
		related = append(related, manName(c.Parent()))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			related = append(related, manName(sub))
		}
	}
	if len(related) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, r := range related {
			sep := ","
			if i == len(related)-1 {
				sep = ""
			}
			fmt.Fprintf(b, "\\fB%s\\fP(1)%s\n", roffText(r), sep)
		}
	}
}

// writeRoffBlock writes a help text: paragraphs filled, indented lines
// (tables, examples) as they are.
func writeRoffBlock(b *strings.Builder, text string) {
	verbatim := false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		indented := strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != ""
		switch {
		case indented && !verbatim:
			b.WriteString(".PP\n.RS 2\n.nf\n")
			verbatim = true
		case !indented && verbatim:
			b.WriteString(".fi\n.RE\n")
			verbatim = false
		}
		switch {
		case strings.TrimSpace(line) == "" && !verbatim:
			b.WriteString(".PP\n")
		default:
			b.WriteString(roffLine(line) + "\n")
		}
	}
	if verbatim {
		b.WriteString(".fi\n.RE\n")
	}
}

// writeRoffFlags lists the visible flags of fs under a heading.
func writeRoffFlags(b *strings.Builder, heading string, fs *pflag.FlagSet) {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f)
		}
	})
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", heading)
	for _, f := range flags {
		arg, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if f.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fP, ", roffText(f.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fP", roffText(f.Name))
		if arg != "" {
			fmt.Fprintf(b, " \\fI%s\\fP", roffText(arg))
		}
		for _, line := range strings.Split(usage, "\n") {
			b.WriteString("\n" + roffLine(line))
		}
		if d := f.DefValue; d != "" && d != "false" && d != "[]" && d != "0" {
			fmt.Fprintf(b, " (default: %s)", roffText(d))
		}
		b.WriteString("\n")
	}
}

// roffText escapes what roff would read as an escape, and writes the
// characters outside ASCII as roff's Unicode escapes (troff reads its input
// as Latin-1 unless man converts it first).
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r >= 0x80:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffQuoted is a macro argument: roffText in double quotes, a quote
// inside written as roff's quote character.
func roffQuoted(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}

// roffLine is roffText for a whole line, which must not start a request.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// manDirs are the man directories install --man may write to, best first:
// the one beside the git-mem that git runs (man-db searches <dir>/../man
// and <dir>/../share/man of every PATH directory, so pages there are found
// wherever git-mem is), then $XDG_DATA_HOME/man (~/.local/share/man, found
// when ~/.local/bin is on PATH, as Debian's default profile arranges).
func manDirs(env *Env) []string {
	var dirs []string
	if bin, err := exec.LookPath("git-mem"); err == nil {
		if abs, err := filepath.Abs(bin); err == nil {
			parent := filepath.Dir(filepath.Dir(abs))
			if st, err := os.Stat(filepath.Join(parent, "man")); err == nil && st.IsDir() {
				// man-db takes <dir>/../man first when it exists
				dirs = append(dirs, filepath.Join(parent, "man"))
			} else {
				dirs = append(dirs, filepath.Join(parent, "share", "man"))
			}
		}
	}
	data := env.Getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := os.UserHomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	if data != "" {
		dirs = append(dirs, filepath.Join(data, "man"))
	}
	return dirs
}

// runInstallMan writes the man pages into dir, or the first of manDirs that
// can be written, and says whether man will find them.
func runInstallMan(_ context.Context, env *Env, dir string) error {
	candidates := []string{dir}
	if dir == "" {
		candidates = manDirs(env)
	}
	var errs []error
	for _, d := range candidates {
		pages, err := writeManPages(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(env.Out, "installed %d man pages in %s\n", len(pages), filepath.Join(d, "man1"))
		if searched, ok := manSearches(d); ok && !searched {
			fmt.Fprintf(env.Err, "note: man does not search %s; add it to MANPATH (export MANPATH=\"%s:\") so that git mem --help finds it\n", d, d)
		}
		return nil
	}
	if len(errs) == 0 {
		return errors.New("no directory to install the man pages into; pass --man-dir DIR")
	}
	return fmt.Errorf("%w; pass --man-dir DIR to choose another directory", errors.Join(errs...))
}

// manSearches reports whether man's search path (manpath, which man-db and
// mandoc both provide) includes dir; ok is false when it cannot be asked.
func manSearches(dir string) (searched, ok bool) {
	out, err := exec.Command("manpath").Output()
	if err != nil {
		return false, false
	}
	want, _ := filepath.EvalSymlinks(dir)
	for _, p := range filepath.SplitList(strings.TrimSpace(string(out))) {
		if got, err := filepath.EvalSymlinks(p); err == nil && got == want {
			return true, true
		}
	}
	return false, true
}

// checkManPages is doctor's look at "git mem --help": git shows the man page
// git-mem(1), so it must be where man looks, and be this version's.
func checkManPages(_ context.Context, _ *Env, _ *gitstore.Set, _ *doctorOptions) []health.Finding {
	f := health.Finding{Check: "man pages", Status: health.OK}
	if _, err := exec.LookPath("man"); err != nil {
		f.Status, f.Message = health.Info, "man is not installed: git mem --help cannot show the manual; git mem help [COMMAND] always works"
		return []health.Finding{f}
	}
	out, err := exec.Command("man", "-w", "git-mem").Output()
	page := strings.TrimSpace(string(out))
	if err != nil || page == "" {
		f.Status, f.Message = health.Info, "no man page for git-mem: git mem --help fails (git mem help [COMMAND] works)"
		f.Fix = "git mem install --man"
		return []health.Finding{f}
	}
	f.Message = "git mem --help shows " + page
	if data, err := os.ReadFile(page); err == nil && !strings.Contains(string(data), "git-mem "+Version().Version) {
		f.Status = health.Info
		f.Message += ", written by another version of git-mem"
		f.Fix = "git mem install --man"
	}
	return []health.Finding{f}
}
