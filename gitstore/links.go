package gitstore

// What package linkstore, which keeps linked stores' local copies, asks of
// gitstore beyond the store itself.

// CheckRemoteArg refuses a remote name or URL that git would read as an
// option (a leading "-"), as a remote helper ("ext::sh -c …" and every
// other "<transport>::" form), or whose host would reach ssh as an option:
// the checks every remote of a pull or push passes, for a link's URL.
func CheckRemoteArg(s string) error { return checkRemoteArg(s) }

// GitEnv is the environment of a git command run for this repository, plus
// extra: the process's, without the redirecting variables (GIT_DIR, …) for
// a repository opened by its files alone.
func (r *Repo) GitEnv(extra ...string) []string { return r.gitEnv(extra...) }
