// Package memfile owns the files memory comes in and goes out as: it reads
// Markdown notes (CLAUDE.md, AGENTS.md, Cursor rules, architecture decision
// records, an agent's own memory folder) and JSON or JSONL lists into
// candidate memories for git mem import, and writes the Markdown of git mem
// export. It reads bytes and writes to an io.Writer: walking directories and
// writing the store are the caller's (cmd, index.RememberBatch).
//
// # What one memory is
//
// A memory is one fact, so a Markdown file gives one memory per top-level
// list item (its nested items and indented code stay with it), per
// paragraph, per table row, and per fenced code block that stands alone.
// Headings give context: the nearest one becomes a retrieval key, and some
// name a type (see below). Front matter, HTML comments, the instruction block
// git mem install writes (between <!-- git-mem:begin … --> and
// <!-- git-mem:end -->), headings themselves and the boilerplate line of a
// generated CLAUDE.md are skipped.
//
// Three kinds of file are one memory each:
//
//   - an architecture decision record (a file with a Decision section and a
//     Status or Context section, as in Michael Nygard's template): one
//     decision whose text is the title, the decision and its context as the
//     reason ("Why: …"); a proposed record is tentative, and a superseded,
//     deprecated or rejected one is refused as no longer current;
//   - a topic file of Claude Code's project memory (front matter with name,
//     description and type user, feedback, project or reference): its body,
//     with the name and description as keys; user and feedback are
//     preferences. The folder's MEMORY.md index is read for anything that is
//     not a link to a topic file;
//   - a Cursor rule (.mdc) gives its front matter's description as a key to
//     each memory of its body.
//
// JSON is an array of memories (or {"memories": [...]}) and JSONL one per
// line; a memory is a string, a {text, type, tags, paths, keys, …} object,
// or a memory as git mem export and --json write it. A memory that carries
// its full id and creation time is restored as it was (id, dates, writer,
// links, events), so an export read back is unchanged.
//
// A record of a JSON or JSONL file that is JSON but not a memory (a field
// of the wrong kind) is an item refused with the reason, at its line, so
// that one bad record neither hides the others nor aborts an import; JSON
// that does not parse makes the whole file unreadable (a *LineError).
//
// # The Markdown export read back
//
// WriteMarkdown writes each memory as a list item followed by a comment with
// its id, and reads its own rendering back before writing it: when the item
// would not give back exactly the text (spaces around it, a line of spaces,
// a comment or the install block's marker inside), it writes the first line
// for people and the exact text as a JSON string in the comment
// (<!-- id text:"…" -->), which Parse prefers. In a file with the export's
// marker, every line starting "- " at the margin opens a memory whatever
// follows (a rule, a heading, a fence), and the lines indented under it are
// its text verbatim. So any text git-mem stores survives export and import.
//
// # Types
//
// A file that says the type wins (JSON type, front matter type, an ADR, the
// sections of a git mem export). Otherwise the text decides, then the
// section heading, else fact:
//
//  1. decision: "we decided", "decided to", "we chose", "we agreed";
//  2. gotcha: gotcha, beware, careful, watch out, caveat, pitfall, or
//     something that breaks, fails, throws, hangs or is flaky;
//  3. preference: "I prefer", "I like", "I want", "user prefers";
//  4. the nearest heading naming a type: Decisions, Gotchas / Pitfalls /
//     Known issues / Troubleshooting, Conventions / Style / Guidelines /
//     Rules, Preferences;
//  5. convention: a rule (never, always, must, do not, don't, should,
//     avoid);
//  6. command: a command in backticks (`go test ./...`, `npm run dev`), any
//     code under a Commands / Scripts / Build / Testing heading, or a shell
//     code block standing alone;
//  7. fact.
package memfile
