package gitstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
)

// ident is one name and email.
type ident struct{ name, email string }

// identities are the author and committer of memory commits.
type identities struct{ author, committer ident }

// identityConfig holds the configuration git takes identities from, keyed
// like git config --get-regexp: "user.name", "author.email", ….
type identityConfig map[string]string

// identities are who memory commits are written as, chosen as git commit
// chooses: GIT_AUTHOR_NAME/EMAIL (GIT_COMMITTER_* for the committer), else
// author.name/email (committer.*), else user.name/email, else EMAIL for the
// email, else the neutral "git-mem <git-mem@localhost>". The configuration is
// asked of git itself, once per repository: go-git's reader does not follow
// include and includeIf, where many people keep their work identity, and
// authorship must match the user's own commits.
func (r *Repo) identities() identities {
	r.identOnce.Do(func() { r.ident = r.readIdentityConfig() })
	pick := func(role, field string) string {
		if v := os.Getenv("GIT_" + strings.ToUpper(role) + "_" + strings.ToUpper(field)); v != "" {
			return v
		}
		if v := r.ident[role+"."+field]; v != "" {
			return v
		}
		if v := r.ident["user."+field]; v != "" {
			return v
		}
		if field == "email" {
			if v := os.Getenv("EMAIL"); v != "" {
				return v
			}
			return "git-mem@localhost"
		}
		return "git-mem"
	}
	return identities{
		author:    ident{pick("author", "name"), pick("author", "email")},
		committer: ident{pick("committer", "name"), pick("committer", "email")},
	}
}

// readIdentityConfig reads the identity settings of this repository as git
// does: from the files go-git parsed when they hold no include, else asked
// of git (which follows include and includeIf, matched against this git
// directory); without a git directory (an in-memory repository) or a git,
// from the files.
func (r *Repo) readIdentityConfig() identityConfig {
	cfg := identityConfig{}
	fromFiles := func() identityConfig {
		for _, k := range []string{"user", "author", "committer"} {
			for _, f := range []string{"name", "email"} {
				if v := r.config.Get(k, "", f); v != "" {
					cfg[k+"."+f] = v
				}
			}
		}
		return cfg
	}
	// git is asked only when the files say more than internal/gitconfig
	// reads (an include, or settings given by git -c to a calling git): a
	// process started is time a hook's deadline feels
	if !r.config.HasIncludes() && os.Getenv("GIT_CONFIG_PARAMETERS") == "" && os.Getenv("GIT_CONFIG_COUNT") == "" {
		return fromFiles()
	}
	if r.GitDir == "" {
		return fromFiles()
	}
	out, err := r.runGit(context.Background(), TransportOptions{}, nil, "config", "--includes", "-z", "--get-regexp", `^(user|author|committer)\.(name|email)$`)
	if err != nil {
		// exit 1: none of them is set; anything else (no git, a config git
		// cannot read): the files as go-git read them
		var ge *gitError
		if errors.As(err, &ge) && ge.exitCode() == 1 {
			return cfg
		}
		return fromFiles()
	}
	for _, entry := range bytes.Split(out, []byte{0}) {
		k, v, ok := strings.Cut(string(entry), "\n")
		if ok {
			cfg[k] = v // later entries win, as in git
		}
	}
	return cfg
}
