// Package gitstore owns the memory model and its storage as commits on
// refs/memory/* inside a git repository. git's plumbing is below it, in
// packages of its own: the object database and the commit and tree codec
// (internal/gitobj, the only importer of go-git), refs and lock files
// (internal/gitrefs), the config reader (internal/gitconfig), the ignore
// rules (internal/gitignore) and the proof of a clean worktree
// (internal/gitworktree); no package outside them but gitstore imports
// them. Its API names none of go-git's types: objects are named by Hash
// (cmd/architecture_test.go checks it).
//
// # Refs
//
//   - refs/memory/main: the project memory, shared when pushed.
//   - refs/memory/private: same layout, never pushed.
//   - refs/memory/remotes/<remote>/main: a fetched remote memory, before merge.
//   - refs/memory/proposals/<author>/<id> and refs/memory/reviews/rejected:
//     the proposals made to a store and the record of rejected ones, which
//     package linkstore writes and reads (its review.go) through gitstore's
//     commits (WriteCommit, ReadCommit, Tx.CommitAs, Store.SetTip) and
//     remote refs (RemoteRef, PushRef, FetchRefs). Both hold a store's
//     layout, so Verify checks them as any memory ref; deleting a proposal
//     is how a review closes it.
//   - the personal store: a bare repository at $XDG_DATA_HOME/git-mem/personal.git
//     (default ~/.local/share/git-mem/personal.git), created on first write, with
//     the same layout on its refs/memory/main; read in every project.
//   - linked stores (Set.Linked): a team's memory shared across repositories,
//     each the refs/memory/main of a local copy (a bare repository, OpenBare)
//     that package linkstore keeps under the user's cache directory; read
//     after the others with the scope "org:NAME", and read-only
//     (Store.ReadOnly) unless linked for writing.
//
// # Tree
//
// One file per memory, fanned out by the first two hex digits of its id:
// memories/ab/ab12cd34ef56ab78.json. A write rewrites one blob, one fan-out
// tree, the memories tree, the root tree and a commit, so its cost does not
// grow with the number of memories.
//
// # Memory document (schema 1)
//
// Canonical JSON: the fields below in this order, UTF-8 without HTML escaping,
// times in UTC RFC 3339 to the second, empty optional fields left out, and a
// trailing newline.
//
//   - schema: always 1 for this layout; readers refuse other values.
//   - id: 16 lower-case hex digits (64 random bits). Shown as the shortest unique
//     prefix of at least 6 digits; accepted as any unique prefix of at least 4.
//   - type: fact, decision, gotcha, convention, command, preference, handoff or session.
//   - text: the memory itself, verbatim; at most MaxTextBytes (8192) bytes of
//     valid UTF-8 without NUL or other control characters than tab and
//     newline (documents written by older versions may hold carriage
//     returns: they are read, never written).
//   - tags: at most MaxTags (20) lower-case labels of at most maxTagBytes (64)
//     bytes (letters, digits, - _ . : /).
//   - paths: at most maxPaths (50) repository-relative files the memory is
//     about, each at most maxPathBytes (512) bytes of UTF-8 without control
//     characters.
//   - keys (absent when none): at most MaxKeys (12) retrieval keys, each at
//     most MaxKeyBytes (120) bytes without control characters: other words
//     and short questions a later reader might use to find the memory,
//     written by its writer; scanned for secrets like the text, indexed below
//     it, changed by a revision, and merged with the text.
//   - source: user (a person said so), verified (checked by running something),
//     inferred (an agent concluded it).
//   - tentative: the writer was unsure; starting trust x0.6.
//   - pinned: always shown at session start.
//   - trust: the starting trust, from source (user 0.90, verified 0.75,
//     inferred 0.50). The effective trust is computed at read time from it and
//     events (Memory.EffectiveTrust).
//   - agent, session: the agent (claude-code, codex, cli, …) and its session id
//     at creation.
//   - subagent: "<agent_type>:<agent_id>" when a subagent of that agent wrote
//     it; such memories are not injected at session start by default.
//   - author: "Name <email>" of the git identity that created it.
//   - anchor: {commit, branch} checked out when it was written.
//   - created, updated: transaction times of creation and last change.
//   - valid_from, valid_to: valid time; valid_to is set when the fact was
//     superseded or expires.
//   - supersedes, superseded_by: full ids linking a fact and its replacement.
//   - events: [{op, at, agent, author, reason}] — confirm, dispute, reinforce,
//     supersede — in order.
//   - reinforced: dates the same fact was learned again (one a day, last 10).
//   - origin (absent unless imported): {file, line} — the file an import
//     read the memory from (repository-relative when it was inside the
//     repository) and the line its text starts on. Readers that predate it
//     ignore it; a merge keeps it like the other creation fields.
//
// agent, subagent, session, author, anchor.branch and the events' short
// fields are at most maxFieldBytes (512) bytes without control characters;
// anchor.commit is a full commit id (40 or 64 lower-case hex digits);
// supersedes and superseded_by are full memory ids; trust is within 0..1; at
// most maxEvents (1000) events and maxReinforced (100) dates; the whole
// document is at most maxDocumentBytes (1 MiB).
//
// # Invalid documents
//
// A remote, a hand edit or an older version can leave a document that breaks
// these rules. validateDocument checks every document a read or a merge
// touches, including that its id equals its file name. Writes never produce
// one. Reads skip an invalid document and record it (Repo.Skipped: the CLI
// warns on stderr), Get reports it as a *DocumentError (memerr.ErrBadDocument and
// memerr.ErrNotFound), git mem doctor lists each with its fix, and git mem forget ID
// (or forget --purge) removes it by its file name. A merge (pull, sync) never
// takes an invalid document from the other side: it keeps this side's
// version, and MergeResult.Rejected and the merge commit say which and why.
// A document larger than the object reader inflates (64 times
// maxDocumentBytes) is such an invalid document too, known by the size in
// its object header without being read: it never makes a pull, sync or push
// fail as a damaged store.
//
// # Commits
//
// Each change is one commit whose subject reads "mem: <op> <short id> <type>:
// <text>" and whose trailers are Memory-Id (one per memory touched), Memory-Op
// (add, revise, confirm, dispute, reinforce, supersede, forget, merge, purge,
// import),
// Agent, Subagent and Session. Author and committer are chosen as git commit
// chooses them: GIT_AUTHOR_NAME/EMAIL (GIT_COMMITTER_* for the committer),
// else author.* (committer.*), else user.name/user.email as git reads them,
// include and includeIf followed (asked of git), else EMAIL for the email,
// else "git-mem <git-mem@localhost>".
// A batch write (Store.WriteBatch, used by git mem import) is one commit for
// every memory it adds or reinforces: its subject names no single id, and it
// carries one Memory-Id trailer per memory touched, as a merge does.
//
// # Repository formats
//
// git-mem writes SHA-1 objects, loose refs and packed-refs. A repository in
// another format (extensions.objectFormat=sha256, extensions.refStorage=
// reftable, extensions.compatObjectFormat) or with an extension git-mem
// does not know is refused when it is opened, before anything is read or
// written (memerr.FormatError, memerr.ErrUnsupportedFormat), as git refuses a repository
// whose extensions it does not know; the repositories git-mem creates (the
// personal store) are made in its formats whatever git's defaults are.
// A repository of another user is refused unless git's safe.directory
// names it (memerr.OwnershipError), as git refuses it. In a
// partial clone, a memory object git left on the promisor remote is asked
// of git, which fetches it (partial.go); a pull fetches without the clone's
// filter. In a shallow clone, walks of history end at its boundary.
//
// # A server's check
//
// Repo.Verify holds what a push brings to refs/memory/* to the rules of a
// write (verify.go), for git mem verify in a server's pre-receive hook or a
// CI job: each new commit's tree keeps this layout, each document it adds
// or changes passes validateDocument and the secret rules of a write,
// tombstones are kept, and a ref loses history only as a purge rewrites it
// (the old history, rewritten in memory without the purged ids, is in the
// new one). A hook reads the pushed objects from git's quarantine
// (Repo.UseObjectEnvironment).
//
// # Writes
//
// Objects are written first; then the ref moves by git's lock protocol
// (<ref>.lock created with O_EXCL, old value verified against the loose ref and
// packed-refs, new value written and fsynced, lock renamed over the ref). When
// another writer moved the ref in between, the change is rebuilt on the new
// tip and tried again, up to 200 times with jittered backoff. A lock names the
// git-mem process that took it ("git-mem pid N on HOST"): when that process
// is gone the lock is broken at once, and any lock older than 10 s is broken
// too. A write starts only with time left before its context's deadline. A
// crash therefore leaves at worst unreachable objects, never a torn ref.
// Loose objects are zlib-compressed at the level git writes them at
// (core.looseCompression, else core.compression, else the fastest).
//
// # The worktree
//
// Recall and the hooks ask which files the worktree is changing
// (WorktreeStatus: git status's answer). A clean worktree of up to 500
// tracked files is proven so from the index, the files' stat data and the
// ignore rules, as git status would (internal/gitworktree); anything
// else runs git status.
//
// # Time
//
// Transaction time is the commit time: the store as of T is the tree of the
// newest commit on the ref's first-parent line at or before T. Valid time is in
// the document: superseding closes valid_to and keeps the old fact in the
// tree; forget removes it from the tree (history keeps it); purge rewrites the
// history of every memory ref without it and records purged/<id> (the id
// only) in the root tree of refs/memory/main, a tombstone that pulls honour:
// the fetched history is rewritten without the memory before it is merged,
// and a teammate's clone purges it too (see tombstone.go).
package gitstore
