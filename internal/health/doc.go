// Package health owns the vocabulary of git mem doctor's checks: a
// Finding (what was checked, how it stands, what fixes it) and the git-mem
// operations a finding can ask for (FixAction), which each surface says in
// its own words. The checks themselves are their packages' (gitstore's of
// the memory refs, the personal store and a remote; cmd's of the rest).
package health
