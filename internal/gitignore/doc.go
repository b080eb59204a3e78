// Package gitignore owns git's ignore rules: the patterns of .gitignore
// files, $GIT_DIR/info/exclude and core.excludesFile, read as git reads
// them, and git's wildmatch, which matches them. It decides, as git does,
// whether an untracked path is ignored; a worktree check relies on it never
// calling ignored what git would show, so a pattern file it cannot read as
// git would is refused (ErrUnsupported) and the check is left to git.
//
// It is held against real git by differential tests: on a worktree of
// awkward names, every path is ignored or not as git check-ignore says, for
// patterns written by hand, made at random or by the fuzzer
// (FuzzIgnoreRulesAsGit).
package gitignore
