// Package memdir owns the layout of <git dir>/mem, git-mem's own files
// beside the repository's: the search index, the recall snapshot, the
// caches, the purge markers, the hooks' log and the session markers. Every
// path git-mem keeps there is named here and nowhere else; gitstore's
// Repo.Mem gives a repository's.
package memdir
