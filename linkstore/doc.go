// Package linkstore owns linked stores: memory a team shares across its
// repositories, kept on an ordinary git repository's refs/memory/main (an
// "org store") and linked from each project.
//
// # Links
//
// A link is recorded in the project repository's git configuration:
//
//   - mem.link.NAME.url: where the org store is (a URL or a path; a path is
//     made absolute when the link is made). URLs that git would read as an
//     option or a remote helper are refused (gitstore.CheckRemoteArg), and
//     so are URLs carrying credentials (a password, or a user name on an
//     http URL, where it is a token): a link's URL is written to a file
//     other repositories read.
//   - mem.link.NAME.write: true when memories may be written to it
//     (git mem add --to NAME); a link is read-only otherwise.
//   - mem.link.NAME.agents: true when agents may write to it too (the MCP
//     server's memory_add with store "org:NAME"); only with write.
//   - mem.link.refresh: at most how often, in minutes, a linked store is
//     fetched in the background (default 60; 0: at every chance).
//
// NAME is a short label (letters, digits, - and _, starting with a letter
// or digit, at most 40 bytes): its memories are read with the scope
// "org:NAME".
//
// # Local copies
//
// Every repository of this user that links one URL reads one local copy of
// it, under the user's cache directory:
//
//	<os.UserCacheDir()>/git-mem/links/<slug of the URL>/
//	    repo.git/     a bare repository: refs/memory/main is the org memory
//	                  (and what was written here and not pushed yet),
//	                  refs/memory/remotes/<slug>/main what was fetched
//	    url           the URL the copy is of
//	    state         when it was last fetched, last tried, the last error,
//	                  and the memories its refreshes purged
//	    ids           the ids of its memories at its tip, sorted: display
//	                  ids unique across the stores read it, not the trees
//	    refresh.lock  held while a refresh fetches (lockfile.Create)
//
// The copy is filled by gitstore's own pull (the git CLI, refs/memory/main
// only, purge tombstones honoured as a project's pull honours them), so a
// purge in the org store removes the memory from every copy that fetches
// it. Ten repositories linking one URL fetch it once: a refresh that finds
// the copy fetched within the refresh interval does nothing, and two that
// start together share one fetch through the lock.
//
// # Proposals and review
//
// A user who may not write an org store proposes to it (Copy.Propose, git
// mem propose): the memory, checked as every write is, is pushed from the
// copy's repository to refs/memory/proposals/<author>/<id> on the org
// store, <author> a slug of the proposer's email. A reviewer lists the
// proposals (Copy.Review, which fetches them with the record of
// rejections), accepts one (Copy.Accept: written to the copy's
// refs/memory/main with the proposer as author and the reviewer as
// committer, pushed as Copy.Push pushes, then the proposal's ref deleted;
// a refused push puts the copy back as it was) or rejects it (Copy.Reject:
// the reason appended to refs/memory/reviews/rejected, then the proposal's
// ref deleted). Identities come from the project repository, never from the
// copy's configuration. The refs, their commits and their checks are
// linkstore's (review.go: everything fetched is others' input, checked as
// a write is), written and read through gitstore's commits and remote refs;
// a host protects refs/memory/main to make every write go through review.
//
// # Refreshing
//
// Reads never fetch: the hooks, recall and the MCP server read the copy as
// it is. A refresh runs in the background after a session ends and after
// git mem sync, when the copy's last try is older than mem.link.refresh;
// offline, the last copy is read and doctor says how old it is.
package linkstore
