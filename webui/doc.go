// Package webui owns git mem ui: a local web page over the same stores the
// CLI reads and writes. It is a thin adapter, as the hooks and the MCP
// server are: every view reads through gitstore (memories, history, the
// memory refs' commits), index (explicit recall and its confidence labels,
// the snapshot's catalog for the first page) and handoff (session notes and
// handoffs), and every action (confirm, dispute, revise, forget, purge) is
// the store call its CLI verb makes, with the same secret checks.
//
// # Safety
//
// The page can change and erase what the agents remember, so the server
// trusts only the person who ran the command:
//
//   - it listens on the loopback addresses only (127.0.0.1 and ::1), on a
//     random free port unless told one;
//   - every path starts with a random per-run token (the URL the command
//     prints and opens): a request without it gets 403, so another local
//     user or a web page that guesses the port reads nothing;
//   - a request whose Host is not the loopback name and port gets 403, so a
//     DNS name rebound to 127.0.0.1 reaches nothing;
//   - a change needs POST, the token and an Origin of the page itself;
//   - the page is html/template (every memory's text, tags and paths are
//     escaped) under a Content-Security-Policy that runs script only from
//     the server's own file, never inline;
//   - an action carries the version of the memory the page showed, and
//     refuses to write over a memory that changed since (a concurrent
//     write by an agent or a pull) instead of overwriting it.
//
// The page follows the store: its script polls the ref tips (a few bytes)
// and reloads when they move.
//
// It imports gitstore, index, handoff and surface, never cobra: cmd's ui
// verb opens the stores and wires the writer in (Options).
package webui
