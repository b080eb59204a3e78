// Package gitconfig owns the reading of git's configuration files: their
// syntax, read character by character as git reads it (sections,
// subsections, quoting, escapes, continuations, comments), the files git
// reads and in which order, and the lookup of a setting (last value wins,
// names compared as git compares them). It does not follow include and
// includeIf: when a file has one, git-mem's own settings (mem.*) are asked of
// git itself through the function the caller gives (Config.AskGit).
//
// The parser is held against real git by differential tests: every file,
// written by hand, made at random or by the fuzzer (FuzzParseConfigAsGit),
// is accepted or refused as git config --list accepts or refuses it, and
// read setting by setting as git reads it.
package gitconfig
