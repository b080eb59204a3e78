package surface

import "github.com/git-mem/git-mem/gitstore"

// Anchor is the code state a new memory saved to store is written against:
// the repository's HEAD (its commit and branch), for the project and
// private stores; nil for the personal store and a linked store, which span
// projects, outside a repository, and when HEAD names neither.
func Anchor(set *gitstore.Set, store *gitstore.Store) *gitstore.Anchor {
	if !set.InRepo() || store.Scope == gitstore.ScopePersonal || store.Scope.Linked() {
		return nil
	}
	head := set.Repo.Head()
	if head.Commit == "" && head.Branch == "" {
		return nil
	}
	return &head
}
