package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/agents"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memerr"
	"github.com/git-mem/git-mem/memfile"
	"github.com/git-mem/git-mem/surface"
)

// maxImportFile bounds one file read by import.
const maxImportFile = 64 << 20

type importOptions struct {
	paths       []string
	dryRun      bool
	private     bool
	global      bool
	agent       string
	source      string
	allowSecret bool
	json        bool
}

func newImportCmd(env *Env) *cobra.Command {
	o := &importOptions{}
	c := &cobra.Command{
		Use:   "import [--dry-run] PATH...",
		Short: "Bring memory in from CLAUDE.md, AGENTS.md, Cursor rules, ADRs, an agent's memory folder, JSON or JSONL",
		Long: `Read memories from files and save them in one commit.

Markdown (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc, docs/adr/*.md, Claude
Code's project memory folder, a git mem export) gives one memory per list item,
paragraph or table row; headings become retrieval keys; the git-mem instruction
block is skipped. An architecture decision record is one decision (its
decision, and its context as the reason). JSON is an array of strings or
{text, type, tags, paths, keys} objects; JSONL one per line; a git mem export
(--format json or jsonl) is restored as it was.

Types come from the file when it says, else from the text: a command in
backticks is a command, "we decided" a decision, "never" or "always" a
convention, "throws" or "flaky" a gotcha. Each memory passes the same checks
as git mem add: an item holding a secret is refused with the reason, the others
are saved; a memory that repeats one already stored reinforces it instead.
Each memory records the file and line it came from. A folder is read for
.md, .mdc, .json and .jsonl files.

A record that is not a memory (a field of the wrong kind, a restored memory
with a bad event) is refused at its file and line, in a dry run as in the
import, and the others are imported; a file that is not JSON where it should
be is skipped at the line where it stops. A symlink from inside the
repository to a file outside it, a device, a FIFO and a file over 64 MiB are
skipped with the reason, never read. Importing the same file again adds
nothing. Interrupted (Ctrl-C), the import writes its one commit whole or not
at all.`,
		Example: `  git mem import --dry-run CLAUDE.md AGENTS.md .cursor/rules docs/adr
  git mem import ~/.claude/projects/my-repo/memory
  git mem export --format jsonl > memory.jsonl && git -C ../other mem import memory.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give the files or folders to import, e.g. git mem import CLAUDE.md docs/adr")
			}
			if o.private && o.global {
				return usagef("--private and --global exclude each other")
			}
			if !cmd.Flags().Changed("source") && agents.InShell(env.Getenv) != "" {
				o.source = gitstore.SourceInferred
			}
			o.paths = args
			return runImport(cmd.Context(), env, o)
		},
	}
	f := c.Flags()
	f.BoolVarP(&o.dryRun, "dry-run", "n", false, "show what would be written and refused; write nothing")
	f.BoolVar(&o.private, "private", false, "save to refs/memory/private (never pushed)")
	f.BoolVar(&o.global, "global", false, "save to your personal store (every project)")
	f.StringVar(&o.agent, "agent", "", "record the write as made by this `agent`")
	f.StringVar(&o.source, "source", gitstore.SourceUser, "how the memories are known when the file does not say: user, verified, inferred")
	f.BoolVar(&o.allowSecret, "allow-secret", false, "store items even if they look like credentials (harmless examples)")
	f.BoolVar(&o.json, "json", false, "print what was done with each memory as JSON")
	return c
}

// importFile is one file to read: where it is, and the name recorded as the
// memories' origin.
type importFile struct {
	path, name string
}

func runImport(ctx context.Context, env *Env, o *importOptions) error {
	set, err := env.openSet()
	if err != nil {
		return err
	}
	store, err := writableStore(set, o.private, o.global)
	if err != nil {
		return err
	}
	workTree := ""
	if set.InRepo() {
		workTree = set.Repo.WorkTree
	}
	files, err := importFiles(env.Dir, workTree, o.paths)
	if err != nil {
		return err
	}
	anchor := surface.Anchor(set, store)
	// the memories the store holds word for word: an item that repeats one
	// is unchanged, even when another memory differs from it only by a
	// number (which the similarity of the batch cannot tell apart)
	held := map[string]string{}
	active, err := store.List(gitstore.Filter{Now: env.Now()})
	if err != nil {
		return err
	}
	for _, m := range active {
		held[m.Type+"\x00"+m.Text] = m.ID
	}
	b, err := readImports(ctx, files, workTree, held, anchor, o)
	if err != nil {
		return err
	}
	items, from, parsed, read := b.items, b.from, b.parsed, b.read
	for _, s := range b.skipped {
		fmt.Fprintln(env.Err, terminalSafe(s, false))
	}
	if len(items) == 0 && len(parsed) == 0 {
		return fmt.Errorf("%w: no memories to import in %s; give Markdown (.md, .mdc), JSON or JSONL files, or folders holding them", memerr.ErrInvalid, strings.Join(o.paths, ", "))
	}
	subject := "from " + files[0].name
	if read > 1 {
		subject = fmt.Sprintf("from %s and %d more files", files[0].name, read-1)
	}
	res, err := index.RememberBatch(ctx, set, store, env.writer(set, o.agent), items, index.BatchOptions{Op: gitstore.OpImport, Subject: subject, DryRun: o.dryRun})
	if err != nil && ctx.Err() != nil {
		// the write is one commit: it landed whole or not at all
		return fmt.Errorf("import interrupted (%w): the store holds all of it or none of it; run git mem import again, it adds only what is missing", ctx.Err())
	}
	if err != nil {
		return err
	}
	report := importReport{DryRun: o.dryRun, Commit: res.Commit, Ref: store.Ref, Files: read}
	for i, out := range res.Outcomes {
		r := from[i]
		switch {
		case out.Refused != nil:
			r.Action, r.Reason = "refused", message(out.Refused)
		case out.Unchanged:
			r.Action = "unchanged"
		case out.Reinforced:
			r.Action = "reinforced"
		default:
			r.Action = "added"
		}
		if out.Memory != nil {
			r.ID, r.Type = out.Memory.ID, out.Memory.Type
		}
		report.add(r)
	}
	for _, r := range parsed {
		report.add(r)
	}
	if o.json {
		if err := writeJSON(env.Out, report); err != nil {
			return err
		}
	} else {
		report.write(env)
	}
	if !o.dryRun && report.Added+report.Reinforced+report.Unchanged == 0 {
		return fmt.Errorf("%w: nothing imported, every memory was refused", memerr.ErrInvalid)
	}
	return nil
}

// importBatch is what the files of an import hold: the items to write and
// where each came from, the items settled without a write (refused or
// unchanged), and the files skipped.
type importBatch struct {
	items   []index.BatchItem
	from    []importResult // where each item came from
	parsed  []importResult
	skipped []string
	read    int
}

// readImports reads and parses the files of an import, settling what needs
// no write: held are the store's memories word for word (type, text -> id),
// anchor the code state new memories are written against.
func readImports(ctx context.Context, files []importFile, workTree string, held map[string]string, anchor *gitstore.Anchor, o *importOptions) (*importBatch, error) {
	b := &importBatch{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("import interrupted (%w) before anything was written; run git mem import again", err)
		}
		data, err := readImportFile(f.path, workTree)
		var found []memfile.Item
		if err == nil {
			found, err = memfile.Parse(f.name, data)
		}
		if err != nil {
			at := f.name
			var le *memfile.LineError
			if errors.As(err, &le) {
				at, err = fmt.Sprintf("%s:%d", f.name, le.Line), le.Err
			}
			b.skipped = append(b.skipped, fmt.Sprintf("skipped %s: %v", at, err))
			continue
		}
		b.read++
		for _, it := range found {
			item, r := importItem(it, f.name, held, anchor, o)
			if item == nil {
				b.parsed = append(b.parsed, r)
				continue
			}
			b.items = append(b.items, *item)
			b.from = append(b.from, r)
		}
	}
	return b, nil
}

// importItem is the memory to write for an item of file, or nil and the
// result of an item settled without a write (refused, or held unchanged).
func importItem(it memfile.Item, file string, held map[string]string, anchor *gitstore.Anchor, o *importOptions) (*index.BatchItem, importResult) {
	r := importResult{File: file, Line: it.Line, Type: it.Type, Text: it.Text}
	if it.Refused != "" {
		r.Action, r.Reason = "refused", it.Refused
		return nil, r
	}
	if id, ok := held[it.Type+"\x00"+it.Text]; ok && it.Restore == nil && (it.ID == "" || it.ID == id) {
		r.Action, r.ID = "unchanged", id
		return nil, r
	}
	src := it.Source
	if src == "" {
		src = o.source
	}
	n := gitstore.NewMemory{
		Type: it.Type, Text: it.Text, Tags: it.Tags, Paths: it.Paths, Keys: it.Keys, Source: src,
		Tentative: it.Tentative, Pinned: it.Pinned, AllowSecret: o.allowSecret,
		Origin: &gitstore.Origin{File: file, Line: it.Line},
	}
	if it.Restore == nil {
		n.Anchor = anchor
	} else if !o.allowSecret {
		// a restore keeps its writer, session, author, branch, origin
		// and events as the file gives them: they reach git too
		if err := gitstore.CheckRestoreSecrets(it.Restore); err != nil {
			r.Action, r.Reason = "refused", message(err)
			return nil, r
		}
	}
	if it.Restore != nil {
		if err := checkRestore(n, it.Restore); err != nil {
			r.Action, r.Reason = "refused", message(err)
			return nil, r
		}
	}
	return &index.BatchItem{New: n, Restore: it.Restore, ID: it.ID}, r
}

// importResult is what import did with one memory of a file.
type importResult struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Action string `json:"action"` // added, reinforced, unchanged, refused
	ID     string `json:"id,omitempty"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	Reason string `json:"reason,omitempty"`
}

// importReport is the --json answer of import, and what its text says.
type importReport struct {
	DryRun     bool           `json:"dry_run"`
	Commit     string         `json:"commit,omitempty"`
	Ref        string         `json:"ref"`
	Files      int            `json:"files"`
	Added      int            `json:"added"`
	Reinforced int            `json:"reinforced"`
	Unchanged  int            `json:"unchanged"`
	Refused    int            `json:"refused"`
	Items      []importResult `json:"items"`
}

func (r *importReport) add(it importResult) {
	switch it.Action {
	case "added":
		r.Added++
	case "reinforced":
		r.Reinforced++
	case "unchanged":
		r.Unchanged++
	case "refused":
		r.Refused++
	}
	r.Items = append(r.Items, it)
}

// write prints the report: each decision in a dry run, the refusals (on
// stderr after a write), and the counts.
func (r *importReport) write(env *Env) {
	refusals := env.Err
	if r.DryRun {
		refusals = env.Out
	}
	for _, it := range r.Items {
		at := fmt.Sprintf("%s:%d", it.File, it.Line)
		short := gitstore.Clip(it.ID, gitstore.MinShownPrefix)
		text := gitstore.Summary(it.Text, 70)
		switch {
		case it.Action == "refused":
			fmt.Fprintln(refusals, terminalSafe(fmt.Sprintf("refused %s: %s", at, it.Reason), false))
		case !r.DryRun:
		case it.Action == "unchanged":
			fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("unchanged  %-10s %s  already stored as %s", it.Type, at, short), false))
		case it.Action == "reinforced":
			fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("reinforce  %-10s %s  %s (same claim as %s)", it.Type, at, text, short), false))
		default:
			fmt.Fprintln(env.Out, terminalSafe(fmt.Sprintf("add        %-10s %s  %s", it.Type, at, text), false))
		}
	}
	counts := fmt.Sprintf("%d added, %d reinforced, %d unchanged, %d refused", r.Added, r.Reinforced, r.Unchanged, r.Refused)
	if r.DryRun {
		fmt.Fprintf(env.Out, "dry run, nothing written: %s would be %s\n", plural(len(r.Items), "memory", "memories"), counts)
		return
	}
	commit := "no commit: nothing new"
	if r.Commit != "" {
		commit = "in commit " + gitstore.Clip(r.Commit, 7) + " of " + r.Ref
	}
	fmt.Fprintf(env.Out, "read %s from %s: %s (%s)\n", plural(len(r.Items), "memory", "memories"), plural(r.Files, "file", "files"), counts, commit)
}

// plural renders "1 memory" or "3 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// importFiles lists the files to read: each file given, and the .md, .mdc,
// .json and .jsonl files under each folder given (not inside .git,
// node_modules or vendor). A file inside the work tree is named by its path
// from the repository root, one outside by its path from the folder given
// (its name, for a file), so that no path of this machine is stored.
func importFiles(dir, workTree string, args []string) ([]importFile, error) {
	var out []importFile
	seen := map[string]bool{}
	addFile := func(path, root string) {
		abs, err := filepath.Abs(path)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		name := ""
		if workTree != "" {
			if rel, err := filepath.Rel(workTree, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				name = rel
			}
		}
		if name == "" {
			name, _ = filepath.Rel(filepath.Dir(root), abs)
		}
		out = append(out, importFile{path: abs, name: filepath.ToSlash(name)})
	}
	for _, arg := range args {
		p := arg
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot read %s: %v", memerr.ErrInvalid, arg, errors.Unwrap(err))
		}
		if !info.IsDir() {
			addFile(p, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "node_modules", "vendor":
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && memfile.Readable(d.Name()) {
				addFile(path, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: cannot read %s: %v", memerr.ErrInvalid, arg, err)
		}
	}
	return out, nil
}

// readImportFile reads one file to import, refusing what would hurt: a
// symlink (or a path through one) from inside the work tree to a file
// outside it, which a committed symlink would otherwise read from the
// importer's machine; anything that is not a regular file (a device, FIFO or
// socket, which would block or never end); and a file over maxImportFile.
// The file is opened without blocking, so a FIFO put in place after the
// check cannot hang the open, and read no further than the limit.
func readImportFile(path, workTree string) ([]byte, error) {
	if workTree != "" && within(workTree, path) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot read it: %v", memerr.ErrInvalid, errors.Unwrap(err))
		}
		root, err := filepath.EvalSymlinks(workTree)
		if err != nil {
			root = workTree
		}
		if !within(root, real) {
			return nil, fmt.Errorf("%w: a symlink to a file outside the repository; import that file by its own path if you mean it", memerr.ErrInvalid)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read it: %v", memerr.ErrInvalid, errors.Unwrap(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file (%s); give a file or a folder", memerr.ErrInvalid, fileKind(info.Mode()))
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read it: %v", memerr.ErrInvalid, errors.Unwrap(err))
	}
	defer fh.Close()
	if info, err = fh.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file; give a file or a folder", memerr.ErrInvalid)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxImportFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read it: %v", memerr.ErrInvalid, err)
	}
	if len(data) > maxImportFile {
		return nil, fmt.Errorf("%w: over the %d-byte limit of one file; split it", memerr.ErrInvalid, maxImportFile)
	}
	return data, nil
}

// within reports whether path is root or inside it (both absolute, clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// fileKind names a file mode that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a file"
}

// checkRestore checks the memory a restored record becomes as its write
// would (every field, the events and dates the file gives), so that a bad
// record is refused at its line, in a dry run as in the import, instead of
// failing the whole write.
func checkRestore(n gitstore.NewMemory, restore *gitstore.Memory) error {
	m := *restore
	m.Type, m.Text, m.Tags, m.Paths, m.Keys = n.Type, n.Text, n.Tags, n.Paths, n.Keys
	m.Source, m.Tentative, m.Pinned = n.Source, n.Tentative, n.Pinned
	m.Trust = gitstore.StartingTrust(n.Source, n.Tentative)
	if m.Origin == nil {
		m.Origin = n.Origin
	}
	data, err := m.Encode()
	if err != nil {
		return fmt.Errorf("%w: %v", memerr.ErrInvalid, err)
	}
	_, err = gitstore.DecodeMemory(data)
	return err
}
