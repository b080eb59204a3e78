// Package memerr is git-mem's error vocabulary: the sentinels callers test
// with errors.Is (ErrNotFound, ErrInvalid, ErrBusy, …) and the typed errors
// that carry the facts of a failure (InvalidInputError, BusyError,
// NoRemoteError, …). Every layer returns them, from the store to the
// installer; their messages name no command or flag, and each surface (the
// CLI, the hooks, the MCP server, the web page) says what to do next in its
// own words. It imports only the secret rules, whose findings a SecretError
// names.
package memerr
