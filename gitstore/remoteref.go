package gitstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-mem/git-mem/memerr"
)

// This file holds the remote side of the refs a store keeps beside its
// memory (linkstore's proposals and their review): where a remote's ref
// points, a push that moves one ref only from where it was seen, and a
// fetch of given refspecs. Each touches refs under refs/memory/ only.

// RemoteRef asks the remote where ref points; zero when it has none.
func (r *Repo) RemoteRef(ctx context.Context, rem *Remote, ref string, t TransportOptions) (Hash, error) {
	if err := checkMemoryRef(ref); err != nil {
		return zeroHash, err
	}
	out, err := r.runGit(ctx, t, rem.remoteConfig(), "ls-remote", "--", rem.arg, ref)
	if err != nil {
		return zeroHash, fmt.Errorf("%w: cannot reach %s (%v); check the remote with git ls-remote %s", memerr.ErrRemote, rem.Display, err, rem.Display)
	}
	for _, line := range strings.Split(string(out), "\n") {
		h, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && name == ref {
			if hash, valid := parseHash(h); valid {
				return hash, nil
			}
		}
	}
	return zeroHash, nil
}

// PushRef moves the remote's ref from `from` (zero: it must not exist) to
// `to` (zero: deletes it), as git push --force-with-lease does. A refusal
// is a memerr.ErrRemote holding the host's message; a ref that is no longer at
// from is a *memerr.BusyError (Op memerr.BusyPush), and nothing changed.
func (r *Repo) PushRef(ctx context.Context, rem *Remote, ref string, from, to Hash, t TransportOptions) error {
	if err := checkMemoryRef(ref); err != nil {
		return err
	}
	refspec := ":" + ref
	if !to.IsZero() {
		refspec = to.String() + refspec
	}
	expect := ""
	if !from.IsZero() {
		expect = from.String()
	}
	out, err := r.runGit(ctx, t, rem.remoteConfig(), "push", "--porcelain", "--no-verify", "--no-follow-tags", "--recurse-submodules=no",
		"--force-with-lease="+ref+":"+expect, "--", rem.arg, refspec)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 || !strings.HasSuffix(f[1], ":"+ref) {
			continue
		}
		flag, summary := f[0], f[2]
		switch {
		case flag == "!" && (strings.Contains(summary, "stale info") || strings.Contains(summary, "fetch first") || strings.Contains(summary, "non-fast-forward")):
			return &memerr.BusyError{Op: memerr.BusyPush, Remote: rem.Display, Reason: fmt.Sprintf("%s moved on %s", ref, rem.Display)}
		case flag == "!":
			return fmt.Errorf("%w: %s refused the push to %s: %s%s", memerr.ErrRemote, rem.Display, ref, RedactURL(summary), hostWords(err))
		}
		if err == nil {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("%w: pushing %s to %s failed (%v); check the remote with git ls-remote %s", memerr.ErrRemote, ref, rem.Display, err, rem.Display)
	}
	return nil
}

// FetchRefs fetches the refspecs from the remote, pruning the refs they
// map to that the remote no longer has, and no tags. The error is git's
// (credentials removed), for the caller to say what was fetched.
func (r *Repo) FetchRefs(ctx context.Context, rem *Remote, t TransportOptions, refspecs ...string) error {
	for _, spec := range refspecs {
		src, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
		if !ok {
			return &memerr.InvalidInputError{Field: "refspec", Value: spec, Reason: fmt.Sprintf("%s names no destination", quoteShort(spec))}
		}
		for _, ref := range []string{strings.TrimSuffix(src, "*"), strings.TrimSuffix(dst, "*")} {
			if err := checkMemoryRef(ref); err != nil {
				return err
			}
		}
	}
	args := append([]string{"fetch", "--quiet", "--no-tags", "--prune", "--refmap=", "--no-write-fetch-head",
		"--recurse-submodules=no", "--no-auto-gc", "--no-filter", "--", rem.arg}, refspecs...)
	if _, err := r.runGit(ctx, t, rem.remoteConfig(), args...); err != nil {
		return err
	}
	r.reopenObjects()
	return nil
}

// checkMemoryRef refuses a ref outside refs/memory/: git-mem reads and
// writes no other ref, here or on a remote.
func checkMemoryRef(ref string) error {
	if !strings.HasPrefix(ref, memoryRefsPrefix) || strings.Contains(ref, "..") {
		return &memerr.InvalidInputError{Field: "ref", Value: ref, Reason: fmt.Sprintf("%s is not a memory ref (refs/memory/...)", quoteShort(ref))}
	}
	return nil
}
