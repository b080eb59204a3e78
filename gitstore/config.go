package gitstore

import "github.com/git-mem/git-mem/internal/gitconfig"

// Config is git's configuration as git-mem reads it: system, global, then
// the repository's own file, later files winning, git-mem's own settings
// (mem.*) as git reads them, includes followed (internal/gitconfig).
type Config = gitconfig.Config
